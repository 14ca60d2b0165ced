/// The values read most often, their names written out: the rows of the longest lists and the
/// pieces of search hits, read thousands of times a page, answer without reflection. The web
/// tests check each against its stored properties (`templateValuesAnswerEveryStoredProperty…`),
/// so a property added to one of them and not here fails there.

extension QuotePages.QuoteRow {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "text": text
        case "favoriteCount": favoriteCount
        case "back": back
        case "categories": categories
        case "source": source
        case "favorite": favorite
        case "notes": notes
        case "pieces": pieces
        default: nil
        }
    }
}

extension QuotePages.QuoteRow.Piece {
    func child(named name: String) -> Any? {
        switch name {
        case "text": text
        case "mark": mark
        default: nil
        }
    }
}

extension QuotePages.QuoteRow.Category {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "query": query
        default: nil
        }
    }
}

extension PlacePages.Map.Row {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "name": self.name
        case "type": type
        case "distance": distance
        case "rated": rated
        case "open": open
        case "lat": lat
        case "lon": lon
        case "color": color
        case "hex": hex
        default: nil
        }
    }
}

extension BundlePages.TodoRow {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "text": text
        case "status": status
        case "pending": pending
        case "trigger": trigger
        case "deadline": deadline
        case "overdue": overdue
        default: nil
        }
    }
}

extension WebPage.Option {
    func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}

extension WebPage.Choice {
    func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "selected": selected
        default: nil
        }
    }
}
