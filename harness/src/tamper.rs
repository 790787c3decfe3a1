//! A copy of the figure manifest with one committed number changed, for the tests that show a
//! changed figure is a named MISMATCH. Test support only (feature `test-support`).

/// A number of the manifest text, raised.
pub struct Tampered {
    /// The manifest text with the number raised.
    pub text: String,
    /// The number as committed.
    pub committed: String,
    /// The number as the tampered text holds it.
    pub tampered: String,
}

/// `text` with the quoted number after the first `field"` that follows `anchor` raised by 0.02:
/// four times the half-unit tolerance of two-decimal figures, so the gate must see it.
pub fn raise(text: &str, anchor: &str, field: &str) -> Result<Tampered, String> {
    let at = text.find(anchor).ok_or_else(|| format!("{anchor:?} is not in the manifest"))?;
    let opening = format!("{field}\"");
    let start =
        at + text[at..].find(&opening).ok_or_else(|| format!("no {opening:?} after {anchor:?}"))? + opening.len();
    let end = start + text[start..].find('"').ok_or("an unterminated number")?;
    let committed = &text[start..end];
    let value: f64 = committed.parse().map_err(|e| format!("{committed:?}: {e}"))?;
    let tampered = format!("{:.2}", value + 0.02);
    Ok(Tampered {
        text: format!("{}{tampered}{}", &text[..start], &text[end..]),
        committed: committed.to_string(),
        tampered,
    })
}
