/// The web app's templates (swift-mustache), one file each in `Resources/templates/`, built into
/// the binary (SwiftPM's `embedInCode`: nothing to install beside it). `{{x}}` escapes; `{{{body}}}`
/// in the layout is the page's own rendered template, never user data.
enum WebTemplates {
    static let all: [String: String] = [
        "layout": text(PackageResources.layout_mustache),
        "refusal": text(PackageResources.refusal_mustache),
        "home": text(PackageResources.home_mustache),
        "signin": text(PackageResources.signin_mustache),
        "settings": text(PackageResources.settings_mustache),
        "bmm-intro": text(PackageResources.bmm_intro_mustache),
        "bmm-section": text(PackageResources.bmm_section_mustache),
        "bmm-goto": text(PackageResources.bmm_goto_mustache),
        "bmm-history": text(PackageResources.bmm_history_mustache),
        "bmm-share": text(PackageResources.bmm_share_mustache),
        "bmm-print": text(PackageResources.bmm_print_mustache),
        "bmm-about": text(PackageResources.bmm_about_mustache),
        "quote": text(PackageResources.quote_mustache),
        "quotes-home": text(PackageResources.quotes_home_mustache),
        "quotes-empty": text(PackageResources.quotes_empty_mustache),
        "quotes-list": text(PackageResources.quotes_list_mustache),
        "bundle-home": text(PackageResources.bundle_home_mustache),
        "bundle-checkin": text(PackageResources.bundle_checkin_mustache),
        "bundle-bundle": text(PackageResources.bundle_bundle_mustache),
        "bundle-review": text(PackageResources.bundle_review_mustache),
        "bundle-all": text(PackageResources.bundle_all_mustache),
        "todo": text(PackageResources.todo_mustache),
        "places-map": text(PackageResources.places_map_mustache),
        "places-location": text(PackageResources.places_location_mustache),
        "bundle-icon": text(PackageResources.bundle_icon_mustache),
        "places-add": text(PackageResources.places_add_mustache),
        "places-place": text(PackageResources.places_place_mustache),
        "places-fetch": text(PackageResources.places_fetch_mustache),
        "quotes-categories": text(PackageResources.quotes_categories_mustache),
        "quotes-search": text(PackageResources.quotes_search_mustache),
        "quotes-history": text(PackageResources.quotes_history_mustache),
        "quotes-schedule": text(PackageResources.quotes_schedule_mustache),
        "pager": text(PackageResources.pager_mustache),
        "sprite": text(PackageResources.sprite_mustache),
        "offline": text(PackageResources.offline_mustache)
    ]

    /// A resource's text, without the file's last line break.
    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == 0x0A ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
