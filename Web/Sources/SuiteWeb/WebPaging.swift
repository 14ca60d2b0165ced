import Foundation

/// A long list shown a page at a time: which page a request asks for (`?page=`, from 1), and the
/// links to the pages around it, keeping the request's other query fields (a filter, a search).
struct WebPaging {
    /// The page shown, from 1.
    let page: Int
    /// How many items a page holds.
    let size: Int

    /// The page `query` asks for (`page=`), 1 when none or nonsense.
    init(_ query: WebForm, size: Int) {
        self.size = size
        let asked = query.first("page").flatMap(Int.init) ?? 1
        // No page lies beyond a million items: a huge number is not worth an offset's scan.
        page = min(max(asked, 1), max(1, 1_000_000 / size))
    }

    /// How many items come before this page.
    var offset: Int { (page - 1) * size }

    /// What the `pager` template shows (as a page's `pager`): links to the page before and after,
    /// the page shown, and how many there are when that is known.
    struct Pager: TemplateValues {
        let page: Int
        let previous: String?
        let next: String?
        /// What the link to the next page says.
        let noun: String?
        let pages: Int?
        /// Whether there is more than this page.
        let shown: Bool
    }

    /// The pager: links to the page before and after (`hasMore`: whether items come after this
    /// page), each keeping `fields` in its query; and, when `total` is known, how many pages there
    /// are.
    func pager(path: String, fields: [(String, String)] = [], hasMore: Bool, total: Int? = nil, noun: String = "more") -> Pager {
        func link(_ page: Int) -> String {
            let query = (fields.filter { !$0.1.isEmpty } + (page > 1 ? [("page", String(page))] : []))
                .map { "\($0.0)=\(QuotePages.queryValue($0.1))" }.joined(separator: "&")
            return query.isEmpty ? path : path + "?" + query
        }
        return Pager(page: page, previous: page > 1 ? link(page - 1) : nil, next: hasMore ? link(page + 1) : nil, noun: hasMore ? noun : nil,
                     pages: total.map { max(1, ($0 + size - 1) / size) }, shown: page > 1 || hasMore)
    }
}
