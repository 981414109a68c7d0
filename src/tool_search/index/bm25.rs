//! BM25F scoring over a tool's fields, each with its own weight and length normalisation.
//!
//! A term's frequency is summed over the fields after weighting and normalising each by its
//! average length (BM25F), then saturated once with `k1`; so a word in a tool's name counts more
//! than the same word in its description, and a long description does not outweigh a name.
//! The sum is then scaled by the share of the query's terms the tool covers (directly or through
//! a lexicon term standing for them), Lucene's classic coordination factor: a tool that matches
//! "edit", "issue" and "title" beats one that matches only a rare "edit".

use super::lexicon::QueryTerm;

/// Fields of a tool, in the order of [`FIELD_WEIGHTS`].
pub(crate) const FIELDS: usize = 5;

/// Name words of the tool, its server's name words, description, parameter names, parameter
/// descriptions. Names carry the intent; parameter text mostly adds vocabulary.
const FIELD_WEIGHTS: [f64; FIELDS] = [3.0, 0.5, 1.0, 0.8, 0.4];
/// Term frequency saturation.
const K1: f64 = 1.2;
/// Length normalisation strength.
const B: f64 = 0.75;
/// Share of the score that depends on how much of the tool's name the query explains: of
/// `list_directory` and `list_allowed_directories`, "list folder" explains all of the first.
const NAME_SHARE: f64 = 0.5;

/// The term statistics of a catalog: per tool, each distinct term with its count per field.
///
/// Plain vectors searched linearly, no vocabulary or sorting: a query touches every tool anyway,
/// catalogs hold tens to a few thousand tools, and the code stays small in the wasm module.
pub(crate) struct Postings {
    /// Per tool, (term, count per field), in order of first occurrence.
    docs: Vec<Vec<(String, [u16; FIELDS])>>,
    /// Per tool, the number of terms of each field.
    lengths: Vec<[u32; FIELDS]>,
    /// Average field lengths over the catalog (at least 1).
    average: [f64; FIELDS],
}

impl Postings {
    /// Indexes tools given as, per tool, the terms of each field.
    pub(crate) fn new(tools: Vec<[Vec<String>; FIELDS]>) -> Postings {
        let mut docs = Vec::with_capacity(tools.len());
        let mut lengths = Vec::with_capacity(tools.len());
        let mut totals = [0f64; FIELDS];
        for fields in tools {
            let mut counts: Vec<(String, [u16; FIELDS])> = Vec::new();
            let mut length = [0u32; FIELDS];
            for (field, words) in fields.into_iter().enumerate() {
                length[field] = words.len() as u32;
                totals[field] += words.len() as f64;
                for word in words {
                    match counts.iter_mut().find(|(term, _)| *term == word) {
                        Some((_, per_field)) => {
                            per_field[field] = per_field[field].saturating_add(1);
                        }
                        None => {
                            let mut per_field = [0u16; FIELDS];
                            per_field[field] = 1;
                            counts.push((word, per_field));
                        }
                    }
                }
            }
            docs.push(counts);
            lengths.push(length);
        }
        let n = docs.len().max(1) as f64;
        let average = totals.map(|total| (total / n).max(1.0));
        Postings {
            docs,
            lengths,
            average,
        }
    }

    /// Scores every tool against the query terms, which stand for `distinct` query words; the
    /// result is in catalog order.
    pub(crate) fn scores(&self, query: &[QueryTerm], distinct: u32) -> Vec<f64> {
        let mut scores = vec![0.0; self.docs.len()];
        let mut covered = vec![0u64; self.docs.len()];
        let mut name_matched = vec![0u32; self.docs.len()];
        let n = self.docs.len() as f64;
        for QueryTerm {
            term,
            weight,
            sources,
        } in query
        {
            let mut hits: Vec<(usize, &[u16; FIELDS])> = Vec::new();
            for (doc, counts) in self.docs.iter().enumerate() {
                for (t, per_field) in counts {
                    if t == term {
                        hits.push((doc, per_field));
                        break;
                    }
                }
            }
            let df = hits.len() as f64;
            let idf = ln(1.0 + (n - df + 0.5) / (df + 0.5));
            for (doc, per_field) in hits {
                let mut tf = 0.0;
                for (field, field_weight) in FIELD_WEIGHTS.iter().enumerate() {
                    let count = f64::from(per_field[field]);
                    let norm =
                        1.0 - B + B * f64::from(self.lengths[doc][field]) / self.average[field];
                    tf += field_weight * count / norm;
                }
                scores[doc] += weight * idf * tf / (K1 + tf);
                covered[doc] |= sources;
                name_matched[doc] += u32::from(per_field[0]);
            }
        }
        for (doc, score) in scores.iter_mut().enumerate() {
            *score *= f64::from(covered[doc].count_ones()) / f64::from(distinct.max(1));
            let name_len = self.lengths[doc][0];
            if name_len > 0 {
                let explained = f64::from(name_matched[doc].min(name_len)) / f64::from(name_len);
                *score *= 1.0 - NAME_SHARE + NAME_SHARE * explained;
            }
        }
        scores
    }
}

/// Natural logarithm of a positive normal `x`, without the libm routine (which the wasm
/// module would otherwise carry for this one call): `x = m·2^k` with `m` in [√½, √2), then
/// `ln m = 2·atanh(z)`, `z = (m−1)/(m+1)`, summed until the terms vanish (|z| < 0.172, so
/// about a dozen). Within a few ulps of `f64::ln`, which the tests check; the index only
/// calls it on idf arguments, which are at least 1.
pub(crate) fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut k = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        k += 1;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut power = z;
    let mut sum = 0.0f64;
    let mut odd = 1.0;
    while power.abs() > 1e-18 * sum.abs().max(1e-300) {
        sum += power / odd;
        power *= z2;
        odd += 2.0;
    }
    k as f64 * std::f64::consts::LN_2 + 2.0 * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, description: &str) -> [Vec<String>; FIELDS] {
        let words = |s: &str| {
            s.split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        };
        [words(name), vec![], words(description), vec![], vec![]]
    }

    fn q(terms: &[&str]) -> Vec<QueryTerm> {
        let term = |(i, t): (usize, &&str)| QueryTerm {
            term: t.to_string(),
            weight: 1.0,
            sources: 1 << i,
        };
        terms.iter().enumerate().map(term).collect()
    }

    fn scores(postings: &Postings, terms: &[&str]) -> Vec<f64> {
        postings.scores(&q(terms), terms.len() as u32)
    }

    #[test]
    fn ln_is_within_a_few_ulps_of_the_standard_one() {
        let mut x = 1.0f64;
        while x < 1e7 {
            for v in [x, x * 1.37, x + 0.5, 1.0 + 1.0 / x] {
                let (ours, std) = (ln(v), v.ln());
                assert!(
                    (ours - std).abs() <= 4.0 * f64::EPSILON * std.abs().max(1.0),
                    "{v}: {ours} vs {std}"
                );
            }
            x *= 1.9;
        }
        assert_eq!(ln(1.0), 0.0);
        assert!((ln(0.25) - 0.25f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn scores_match_the_bm25f_formula_on_a_fixed_table() {
        let postings = Postings::new(vec![
            doc("list issue", "list issue in a repo"),
            doc("get issue", "get one issue"),
            doc("read file", "read a file"),
        ]);
        let scores = scores(&postings, &["list"]);
        // df(list) = 1 of 3: idf = ln(1 + 2.5 / 1.5). Field lengths 2 (name, average 2) and 5
        // (description, average 11/3).
        let idf = (1.0f64 + 2.5 / 1.5).ln();
        let tf = 3.0 * 1.0 / 1.0 + 1.0 / (0.25 + 0.75 * 5.0 / (11.0 / 3.0));
        // The query explains one of the two name words.
        let expected = idf * tf / (K1 + tf) * (1.0 - NAME_SHARE + NAME_SHARE / 2.0);
        assert!(
            (scores[0] - expected).abs() < 1e-12,
            "{scores:?} vs {expected}"
        );
        assert_eq!(&scores[1..], &[0.0, 0.0]);
    }

    #[test]
    fn rarer_terms_and_name_matches_rank_higher() {
        let postings = Postings::new(vec![
            doc("list issue", "list issues"),
            doc("get issue", "get one issue"),
            doc("read file", "read a file mentioning issue"),
        ]);
        let scores = scores(&postings, &["issue", "list"]);
        // Both query terms beat one; a name match beats a description-only match.
        assert!(scores[0] > scores[1], "{scores:?}");
        assert!(scores[1] > scores[2], "{scores:?}");
        assert!(scores[2] > 0.0);
        // A term weight scales its contribution.
        let mut half = q(&["list"]);
        half[0].weight = 0.5;
        let half = postings.scores(&half, 1);
        assert!((half[0] * 2.0 - postings.scores(&q(&["list"]), 1)[0]).abs() < 1e-12);
    }

    #[test]
    fn unknown_terms_and_empty_catalogs_score_nothing() {
        let postings = Postings::new(vec![doc("get issue", "")]);
        assert_eq!(scores(&postings, &["nothing"]), [0.0]);
        assert!(scores(&Postings::new(vec![]), &["issue"]).is_empty());
    }

    #[test]
    fn names_the_query_fully_explains_rank_first() {
        let postings = Postings::new(vec![
            doc("list allowed directory", "list directory"),
            doc("list directory", "show entries"),
        ]);
        let scores = scores(&postings, &["list", "directory"]);
        assert!(scores[1] > scores[0], "{scores:?}");
    }

    #[test]
    fn coverage_scales_scores_by_the_share_of_query_words_matched() {
        let postings = Postings::new(vec![
            doc("edit file", "edit a file"),
            doc("update issue", "update an issue title"),
            doc("x", "issue"),
        ]);
        let one = scores(&postings, &["edit"]);
        // Adding words the first tool lacks halves (1 of 2) and thirds (1 of 3) its score.
        let two = scores(&postings, &["edit", "absent"]);
        assert!((two[0] * 2.0 - one[0]).abs() < 1e-12);
        // An added term standing for "edit" covers it: the issue tool covers all three words.
        let mut query = q(&["edit", "issue", "title"]);
        query.push(QueryTerm {
            term: "update".to_owned(),
            weight: 0.5,
            sources: 0b001,
        });
        let three = postings.scores(&query, 3);
        assert!(three[1] > three[0], "{three:?}");
        let uncovered = {
            let mut query = query.clone();
            query[3].sources = 0;
            postings.scores(&query, 3)
        };
        assert!((uncovered[1] * 3.0 / 2.0 - three[1]).abs() < 1e-12);
    }
}
