//! Findings as the JSON reports carry them.

/// Findings as the JSON reports carry them: `{code, message, advice}` each.
pub(crate) fn findings_json<S: serde::Serializer>(
    findings: &[vat_model::Finding],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    struct Json<'a> {
        code: &'a str,
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        advice: Option<&'a str>,
    }
    serializer.collect_seq(findings.iter().map(|f| Json { code: f.code, message: &f.message, advice: f.advice }))
}
