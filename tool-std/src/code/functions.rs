//! The toolset as Python functions: which tools the code may call, the Python name of each
//! tool and of each of its arguments (reversibly: the table maps back), and the binding of a
//! Python call's positional and keyword arguments to the tool's JSON arguments.

use std::collections::{HashMap, HashSet};

use monty_types::{ExcType, ExtFunctionResult, MontyException, MontyObject};
use serde_json::{Map, Value};
use tool_core::Toolset;
use tool_core::spec::ToolSpec;

use super::values::to_json;

/// Tools the code cannot call: `execute` itself (code that runs code would only nest the same
/// sandbox, and each level would take the caller's limits again), and `present_plan`, which
/// asks the user to approve a plan: a turn-level exchange a script cannot hold.
pub const NOT_CALLABLE_FROM_CODE: &[&str] = &["execute", "present_plan"];

/// Python's keywords, which no name may be.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type",
];

/// Built-in names a tool's function must not shadow: code that calls `print` or `len` means
/// Python's, so a tool of that name is offered as `print_`.
const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "vars",
    "zip",
];

/// Whether code may call the tool of `spec`.
#[must_use]
pub fn callable_from_code(spec: &ToolSpec) -> bool {
    !NOT_CALLABLE_FROM_CODE.contains(&spec.name.as_ref())
}

/// One tool as a Python function.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    /// The name the code calls it by.
    pub python_name: String,
    /// The tool's name, for the nested call.
    pub tool: String,
    /// The tool's description.
    pub description: String,
    /// Its parameters in the order of the signature: the schema's, required ones first
    /// (Python puts parameters without a default before those with one).
    pub params: Vec<Param>,
    /// The schema admits properties it does not list, so unknown keywords are passed on.
    pub open: bool,
    /// The root of the input schema, against which `$ref`s resolve.
    pub schema: Value,
    /// The tool returns a structured value (it has an output schema).
    pub structured: bool,
}

/// One parameter of a [`Function`].
#[derive(Debug, Clone)]
pub(crate) struct Param {
    /// Its Python name.
    pub python_name: String,
    /// The JSON property it fills.
    pub json_name: String,
    pub required: bool,
    /// The property's schema.
    pub schema: Value,
}

/// Every function the code may call, by Python name.
#[derive(Debug, Clone, Default)]
pub(crate) struct FunctionTable {
    functions: Vec<Function>,
    by_name: HashMap<String, usize>,
}

impl FunctionTable {
    /// The callable tools of `toolset`, in its order (by name).
    pub(crate) fn new(toolset: &Toolset) -> Self {
        let mut table = FunctionTable::default();
        let mut taken: HashSet<String> = HashSet::new();
        for tool in toolset
            .iter()
            .filter(|tool| callable_from_code(tool.spec()))
        {
            let spec = tool.spec();
            let python_name = unique(python_identifier(&spec.name, true), &mut taken);
            let schema = tool.input_schema().as_value().clone();
            let required: HashSet<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut params_taken = HashSet::new();
            let mut params: Vec<Param> = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| {
                    properties
                        .iter()
                        .map(|(name, property)| Param {
                            python_name: unique(python_identifier(name, false), &mut params_taken),
                            json_name: name.clone(),
                            required: required.contains(name.as_str()),
                            schema: property.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            // A stable sort: the schema's order within each group.
            params.sort_by_key(|param| !param.required);
            let open = match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => false,
                Some(_) => true,
                None => schema.get("properties").is_none(),
            };
            table
                .by_name
                .insert(python_name.clone(), table.functions.len());
            table.functions.push(Function {
                python_name,
                tool: spec.name.clone().into_owned(),
                description: spec.description.trim().to_owned(),
                params,
                open,
                structured: tool.output_schema().is_some(),
                schema,
            });
        }
        table
    }

    /// The function the code calls `python_name`.
    /// A call from code of `name` bound to its tool: the function (a plain function; a method
    /// of an object is none of the tools) and the tool's arguments as JSON text; or the
    /// exception the call raises instead (`NameError` for what is not there, `TypeError` for
    /// arguments the function does not take). What both ways of running code share.
    pub(crate) fn bind(
        &self,
        name: &str,
        is_method: bool,
        positional: &[MontyObject],
        keywords: &[(MontyObject, MontyObject)],
    ) -> Result<(&Function, String), ExtFunctionResult> {
        let function = match (is_method, self.get(name)) {
            (false, Some(function)) => function,
            _ => return Err(ExtFunctionResult::NotFound(name.to_owned())),
        };
        match function.arguments(positional, keywords) {
            Ok(arguments) => Ok((function, Value::Object(arguments).to_string())),
            Err(message) => Err(ExtFunctionResult::Error(MontyException::new(
                ExcType::TypeError,
                Some(message),
            ))),
        }
    }

    pub(crate) fn get(&self, python_name: &str) -> Option<&Function> {
        self.by_name
            .get(python_name)
            .map(|&index| &self.functions[index])
    }

    /// Every function, in the toolset's order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter()
    }
}

impl Function {
    /// The tool's JSON arguments for a Python call: positional arguments fill the parameters
    /// in signature order, keywords by their Python (or JSON) name; `None` for a parameter
    /// that is not required means "the default", so it is left out. The error is the message
    /// of the `TypeError` the call raises.
    pub(crate) fn arguments(
        &self,
        positional: &[MontyObject],
        keywords: &[(MontyObject, MontyObject)],
    ) -> Result<Map<String, Value>, String> {
        let name = &self.python_name;
        if positional.len() > self.params.len() {
            return Err(format!(
                "{name}() takes {} positional argument{} but {} were given; its parameters: {}",
                self.params.len(),
                if self.params.len() == 1 { "" } else { "s" },
                positional.len(),
                self.parameter_list()
            ));
        }
        let mut arguments = Map::new();
        let mut given: Vec<(&Param, Option<&str>, &MontyObject)> = Vec::new();
        for (param, value) in self.params.iter().zip(positional) {
            given.push((param, None, value));
        }
        for (key, value) in keywords {
            let MontyObject::String(key) = key else {
                return Err(format!("{name}() keywords must be strings"));
            };
            match self
                .params
                .iter()
                .find(|param| param.python_name == *key || param.json_name == *key)
            {
                Some(param) => {
                    if given
                        .iter()
                        .any(|(seen, ..)| seen.json_name == param.json_name)
                    {
                        return Err(format!(
                            "{name}() got multiple values for argument '{}'",
                            param.python_name
                        ));
                    }
                    given.push((param, Some(key), value));
                }
                None if self.open => {
                    let value = to_json(value).map_err(|error| {
                        format!("{name}() argument '{key}' cannot be sent to the tool: {error}")
                    })?;
                    arguments.insert(key.clone(), value);
                }
                None => {
                    return Err(format!(
                        "{name}() got an unexpected keyword argument '{key}'; its parameters: {}",
                        self.parameter_list()
                    ));
                }
            }
        }
        for (param, _, value) in given {
            if !param.required && matches!(value, MontyObject::None) {
                continue;
            }
            let value = to_json(value).map_err(|error| {
                format!(
                    "{name}() argument '{}' cannot be sent to the tool: {error}; pass str, int, float, bool, None, list or dict",
                    param.python_name
                )
            })?;
            arguments.insert(param.json_name.clone(), value);
        }
        let missing: Vec<&str> = self
            .params
            .iter()
            .filter(|param| param.required && !arguments.contains_key(&param.json_name))
            .map(|param| param.python_name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "{name}() missing required argument{}: {}",
                if missing.len() == 1 { "" } else { "s" },
                missing
                    .iter()
                    .map(|param| format!("'{param}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok(arguments)
    }

    /// The parameters' Python names, for an error message.
    fn parameter_list(&self) -> String {
        if self.params.is_empty() {
            return "none".to_owned();
        }
        self.params
            .iter()
            .map(|param| param.python_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `name` as a Python identifier: `-` and other characters as `_` (a leading `-`, as in
/// `-i`, dropped), `_` before a leading digit, `_` after a keyword (and, for a function, after
/// a built-in's name).
fn python_identifier(name: &str, function: bool) -> String {
    let trimmed = name.trim_start_matches('-');
    let mut identifier: String = trimmed
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if identifier.is_empty() {
        identifier.push_str("arg");
    }
    if identifier.starts_with(|c: char| c.is_ascii_digit()) {
        identifier.insert(0, '_');
    }
    if KEYWORDS.contains(&identifier.as_str())
        || (function && BUILTINS.contains(&identifier.as_str()))
    {
        identifier.push('_');
    }
    identifier
}

/// `name`, or `name_`, `name__` ... whichever is not taken yet; then taken.
fn unique(mut name: String, taken: &mut HashSet<String>) -> String {
    while taken.contains(&name) {
        name.push('_');
    }
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_python_identifiers_are_mapped() {
        assert_eq!(python_identifier("read_file", true), "read_file");
        assert_eq!(
            python_identifier("mcp__git-hub__search", true),
            "mcp__git_hub__search"
        );
        assert_eq!(python_identifier("-i", false), "i");
        assert_eq!(python_identifier("2fa", false), "_2fa");
        assert_eq!(python_identifier("type", false), "type_");
        assert_eq!(python_identifier("print", true), "print_");
        assert_eq!(python_identifier("print", false), "print");
    }

    fn read_file() -> Function {
        let table = FunctionTable::new(&Toolset::named(["read_file", "execute"]).unwrap());
        assert!(
            table.get("execute").is_none(),
            "execute is not callable from code"
        );
        table.get("read_file").unwrap().clone()
    }

    fn text(value: &str) -> MontyObject {
        MontyObject::String(value.to_owned())
    }

    #[test]
    fn positional_and_keyword_arguments_make_the_json_arguments() {
        let read_file = read_file();
        let arguments = read_file
            .arguments(
                &[text("a.txt"), MontyObject::Int(2)],
                &[(text("anchors"), MontyObject::Bool(true))],
            )
            .unwrap();
        assert_eq!(
            Value::Object(arguments),
            serde_json::json!({"path": "a.txt", "offset": 2, "anchors": true})
        );
    }

    #[test]
    fn none_for_an_optional_parameter_means_its_default() {
        let arguments = read_file()
            .arguments(&[text("a.txt"), MontyObject::None], &[])
            .unwrap();
        assert_eq!(
            Value::Object(arguments),
            serde_json::json!({"path": "a.txt"})
        );
    }

    #[test]
    fn a_call_python_would_refuse_is_refused_with_pythons_words() {
        let read_file = read_file();
        let too_many: Vec<MontyObject> = (0..5).map(MontyObject::Int).collect();
        assert_eq!(
            read_file.arguments(&too_many, &[]).unwrap_err(),
            "read_file() takes 4 positional arguments but 5 were given; its parameters: path, offset, limit, anchors"
        );
        assert_eq!(
            read_file
                .arguments(&[text("a.txt")], &[(text("path"), text("b.txt"))])
                .unwrap_err(),
            "read_file() got multiple values for argument 'path'"
        );
        assert_eq!(
            read_file.arguments(&[], &[]).unwrap_err(),
            "read_file() missing required argument: 'path'"
        );
        let bytes = MontyObject::Bytes(b"a.txt".to_vec());
        assert!(read_file.arguments(&[bytes], &[]).unwrap_err().starts_with(
            "read_file() argument 'path' cannot be sent to the tool: a `bytes` has no JSON form"
        ));
    }

    #[test]
    fn a_name_two_tools_would_share_is_made_unique() {
        let mut taken = HashSet::new();
        assert_eq!(unique(python_identifier("a-b", true), &mut taken), "a_b");
        assert_eq!(unique(python_identifier("a_b", true), &mut taken), "a_b_");
    }
}
