import Foundation

/// How `near --sort score` ranks places: a Bayesian mean of the user's ratings, pulled towards
/// the middle of the scale, times a Gaussian decay with distance.
///
/// - Quality `R` (0…5) is the mean of the rated dimensions, noise and cost counted the other way
///   round (5 − value), since lower is better for them.
/// - Smoothed quality `WR = v/(v+m)·R + m/(v+m)·C`, with `v` the number of rated dimensions,
///   prior weight `m` = ``priorWeight`` and prior mean `C` = ``priorMean`` (the middle of the
///   scale). An unrated place counts as `C`: average until you rate it, so it never outranks a
///   place you rated well at a similar distance, and a place you rated badly falls below it.
/// - Score `S = WR/5 · exp(−max(0, d − 100 m)² / 2σ²)`, with `σ` half the search radius (at
///   least 300 m): 0…1, and the first 100 m cost nothing.
public enum PlaceRanking {
    /// The prior weight `m`: as many pseudo-ratings as this.
    public static let priorWeight = 2.0

    /// The prior mean `C`: the middle of the 0…5 scale.
    public static let priorMean = 2.5

    /// The smoothed quality `WR`, 0…5.
    ///
    /// - Parameters:
    ///   - rating: the user's rating, nil when the place is unrated.
    ///   - prior: the prior mean `C`.
    /// - Returns: `prior` for an unrated place, else `v/(v+m)·R + m/(v+m)·C`.
    public static func smoothedQuality(_ rating: Rating?, prior: Double = priorMean) -> Double {
        guard let rating, let quality = rating.quality else { return prior }
        let v = Double(rating.values.count)
        return v / (v + priorWeight) * quality + priorWeight / (v + priorWeight) * prior
    }

    /// The quality ranking uses: the user's own rating when it rates anything; otherwise the
    /// community's medians, weighed by how many people rated (v = their number); otherwise the prior.
    public static func smoothedQuality(_ rating: Rating?, community: CommunityRatingSummary?, prior: Double = priorMean) -> Double {
        if let rating, rating.quality != nil { return smoothedQuality(rating, prior: prior) }
        guard let community, let quality = community.quality, community.count > 0 else { return prior }
        let v = Double(community.count)
        return v / (v + priorWeight) * quality + priorWeight / (v + priorWeight) * prior
    }

    /// The width of the distance decay for a search radius: half of it, at least 300 m.
    ///
    /// - Parameter radius: the search radius in metres.
    /// - Returns: `σ` in metres.
    public static func sigma(radius: Double) -> Double { max(radius / 2, 300) }

    /// The ranking score, 0…1.
    ///
    /// - Parameters:
    ///   - quality: the smoothed quality, 0…5.
    ///   - distance: metres from the search point.
    ///   - sigma: the decay's width in metres.
    /// - Returns: `quality/5 · exp(−max(0, distance − 100)² / 2σ²)`.
    public static func score(quality: Double, distance: Double, sigma: Double) -> Double {
        quality / 5 * exp(-pow(max(0, distance - 100), 2) / (2 * sigma * sigma))
    }

    /// The formula in one line, for help and `places show`.
    public static let summary = "score = WR/5 × exp(−max(0, d − 100 m)² / 2σ²), WR = v/(v+2)·R + 2/(v+2)·2.5 "
        + "(R: mean of your v ratings, noise and cost reversed; a place you did not rate uses the community's medians, v = how many rated it; "
        + "one nobody rated counts as 2.5; σ: half the radius, at least 300 m)"
}
