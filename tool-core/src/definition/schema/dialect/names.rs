//! Tool names as each provider accepts them, and the map back: [`ToolNames`].
//!
//! Our names already match `^[a-zA-Z0-9_-]{1,64}$` (checked when a tool enters a toolset),
//! which every provider accepts except Gemini when the name starts with a digit or a dash.
//! The map is still general — any character a provider refuses becomes `_`, a refused first
//! character gets a `_` in front, an overlong name is cut and given a hash of the original,
//! and a clash gets a numbered suffix — so a change of rule or a dynamic tool cannot produce a
//! name the provider rejects. The map back is a table, never a guess: a provider's name that
//! no tool was exported under has no original.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::Dialect;

/// What a provider accepts as a tool name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameRule {
    max_len: usize,
    /// Characters allowed after the first, besides ASCII letters and digits.
    extra: &'static [u8],
    /// The first character must be a letter or `_`.
    letter_first: bool,
}

impl NameRule {
    /// The rule of a dialect's provider.
    pub(crate) fn of(dialect: Dialect) -> NameRule {
        match dialect {
            // MCP 2025-11-25, "Tool names": 1 to 128 of A-Z a-z 0-9 _ - .
            Dialect::Mcp => NameRule {
                max_len: 128,
                extra: b"_-.",
                letter_first: false,
            },
            // OpenAI function calling: ^[a-zA-Z0-9_-]{1,64}$.
            Dialect::OpenAi { .. } => NameRule {
                max_len: 64,
                extra: b"_-",
                letter_first: false,
            },
            // Anthropic tool use: ^[a-zA-Z0-9_-]{1,128}$.
            Dialect::Anthropic { .. } => NameRule {
                max_len: 128,
                extra: b"_-",
                letter_first: false,
            },
            // Gemini FunctionDeclaration.name: starts with a letter or `_`; letters, digits,
            // `_`, `.`, `-`; at most 64.
            Dialect::Gemini { .. } => NameRule {
                max_len: 64,
                extra: b"_-.",
                letter_first: true,
            },
        }
    }

    fn allows_byte(self, byte: u8) -> bool {
        byte.is_ascii_alphanumeric() || self.extra.contains(&byte)
    }

    fn allows_first(self, byte: u8) -> bool {
        if self.letter_first {
            byte.is_ascii_alphabetic() || byte == b'_'
        } else {
            self.allows_byte(byte)
        }
    }

    /// `true` if the provider takes `name` as it is.
    pub(crate) fn accepts(self, name: &str) -> bool {
        let bytes = name.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= self.max_len
            && self.allows_first(bytes[0])
            && bytes.iter().all(|&byte| self.allows_byte(byte))
    }

    /// The name under this rule: `name` itself when accepted, else a repaired one.
    pub(crate) fn apply<'a>(self, name: &'a str) -> Cow<'a, str> {
        if self.accepts(name) {
            return Cow::Borrowed(name);
        }
        let mut repaired: String = name
            .bytes()
            .map(|byte| {
                if self.allows_byte(byte) {
                    char::from(byte)
                } else {
                    '_'
                }
            })
            .collect();
        if repaired.is_empty() || !self.allows_first(repaired.as_bytes()[0]) {
            repaired.insert(0, '_');
        }
        if repaired.len() > self.max_len {
            // Cut, and keep the names of two long tools apart by a hash of the whole original.
            let suffix = format!("_{:08x}", fnv1a(name.as_bytes()));
            repaired.truncate(self.max_len - suffix.len());
            repaired.push_str(&suffix);
        }
        Cow::Owned(repaired)
    }

    /// `base` with a numbered suffix, still within the rule.
    fn numbered(self, base: &str, number: usize) -> String {
        let suffix = format!("_{number}");
        let keep = base.len().min(self.max_len - suffix.len());
        format!("{}{suffix}", &base[..keep])
    }
}

/// A stable 32-bit hash (FNV-1a): the same name always gets the same provider name.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// The names a toolset's tools were exported under, both ways.
///
/// ```
/// use tool_core::schema::{Dialect, GeminiForm};
/// use tool_core::{tool, Toolset};
///
/// /// Check a two-factor code.
/// ///
/// /// # Arguments
/// /// * `code` - The six digits.
/// #[tool(read_only, name = "2fa_check")]
/// fn check(code: String) -> bool { code.len() == 6 }
///
/// let toolset = Toolset::named(["2fa_check"]).unwrap();
/// let export = toolset.export(Dialect::Gemini { form: GeminiForm::JsonSchema });
/// // Gemini wants a letter or `_` first.
/// assert_eq!(export.names.provider("2fa_check"), Some("_2fa_check"));
/// assert_eq!(export.names.original("_2fa_check"), Some("2fa_check"));
/// assert_eq!(export.names.original("2fa_check"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolNames {
    // Names are the tools' own and the provider's echo of them: a fast hash is safe.
    to_provider: FxHashMap<String, String>,
    to_original: FxHashMap<String, String>,
}

impl ToolNames {
    /// Our tool's name for the name the provider knows it by (what a provider's tool call
    /// carries), or `None` if no tool was exported under that name.
    #[must_use]
    pub fn original(&self, provider_name: &str) -> Option<&str> {
        self.to_original.get(provider_name).map(String::as_str)
    }

    /// The name the provider knows our tool by.
    #[must_use]
    pub fn provider(&self, original: &str) -> Option<&str> {
        self.to_provider.get(original).map(String::as_str)
    }

    /// The pairs whose names differ, as `(original, provider)`, sorted by original.
    #[must_use]
    pub fn renamed(&self) -> Vec<(&str, &str)> {
        let mut renamed: Vec<(&str, &str)> = self
            .to_provider
            .iter()
            .filter(|(original, provider)| original != provider)
            .map(|(original, provider)| (original.as_str(), provider.as_str()))
            .collect();
        renamed.sort_unstable();
        renamed
    }

    /// How many tools are named.
    #[must_use]
    pub fn len(&self) -> usize {
        self.to_provider.len()
    }

    /// `true` if none are.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.to_provider.is_empty()
    }

    /// Records `original` under the provider name `wanted` (already within `rule`), or under a
    /// numbered variant when another tool took `wanted`. Returns the name given.
    pub(crate) fn insert(&mut self, rule: NameRule, original: &str, wanted: &str) -> &str {
        let mut given = wanted.to_owned();
        let mut number = 2;
        while self.to_original.contains_key(&given) {
            given = rule.numbered(wanted, number);
            number += 1;
        }
        self.to_original.insert(given.clone(), original.to_owned());
        self.to_provider.insert(original.to_owned(), given);
        &self.to_provider[original]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{GeminiForm, OpenAiApi};

    const GEMINI: Dialect = Dialect::Gemini {
        form: GeminiForm::OpenApi,
    };

    #[test]
    fn a_name_every_provider_accepts_is_kept() {
        for dialect in Dialect::ALL {
            assert_eq!(NameRule::of(dialect).apply("read_file"), "read_file");
        }
    }

    #[test]
    fn gemini_gets_a_letter_or_underscore_first() {
        assert_eq!(NameRule::of(GEMINI).apply("2fa"), "_2fa");
        assert_eq!(NameRule::of(GEMINI).apply("-x"), "_-x");
    }

    #[test]
    fn refused_characters_become_underscores() {
        let openai = NameRule::of(Dialect::OpenAi {
            strict: true,
            api: OpenAiApi::Responses,
        });
        assert_eq!(openai.apply("mcp.server.tool"), "mcp_server_tool");
        assert_eq!(
            NameRule::of(Dialect::Mcp).apply("mcp.server.tool"),
            "mcp.server.tool"
        );
    }

    #[test]
    fn an_overlong_name_is_cut_with_a_hash_that_keeps_two_apart() {
        let rule = NameRule::of(GEMINI);
        let (long, longer) = (
            format!("1{}", "a".repeat(70)),
            format!("1{}", "a".repeat(71)),
        );
        let (a, b) = (rule.apply(&long), rule.apply(&longer));
        assert_eq!(a.len(), 64);
        assert!(rule.accepts(&a) && rule.accepts(&b));
        assert_ne!(a, b);
    }

    #[test]
    fn a_clash_gets_a_numbered_name_and_both_map_back() {
        let rule = NameRule::of(GEMINI);
        let mut names = ToolNames::default();
        assert_eq!(names.insert(rule, "_2fa", "_2fa"), "_2fa");
        assert_eq!(names.insert(rule, "2fa", "_2fa"), "_2fa_2");
        assert_eq!(names.original("_2fa"), Some("_2fa"));
        assert_eq!(names.original("_2fa_2"), Some("2fa"));
        assert_eq!(names.renamed(), [("2fa", "_2fa_2")]);
    }
}
