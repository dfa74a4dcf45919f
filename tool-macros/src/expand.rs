//! Code generation only: from a checked model, emit the user's function (cleaned of parameter
//! attributes) and, inside `const _: () = { ... }`, the args struct, the `static` spec, the unit
//! type implementing `Tool`, spanned type checks, and the `inventory` registration. Every path
//! into the runtime is absolute, through `<crate>::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Path, Type};

use crate::ast::{Param, ParamKind, ToolFn, ToolItem, unraw};
use crate::attr::ToolAttrs;

pub(crate) fn expand(attrs: &ToolAttrs, tool: &ToolFn<'_>, cleaned: &ToolItem) -> TokenStream {
    let krate: Path = attrs
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::tool_core));
    let private = quote!(#krate::__private);
    let args = ArgsCode::new(&krate, tool);
    let spec = spec(&krate, attrs, tool);
    let checks = checks(&private, tool);
    let prepare = prepare(&krate, attrs, tool, &args.ty);
    let invoke = invoke(&krate, attrs, tool, &args.ty);
    let args_def = &args.definition;
    let args_ty = &args.ty;
    let output_ty = checked_output(&private, tool);
    // Text and unit have no output schema, which is the trait's default: leave the method out.
    let output_schema = (!returns_text(tool)).then(|| {
        quote! {
            fn output_schema(&self) -> ::core::option::Option<&#krate::__private::Schema> {
                static SCHEMA: #private::OnceLock<::core::option::Option<#krate::__private::Schema>> =
                    #private::OnceLock::new();
                #private::cached_output_schema(&SCHEMA, #private::output_schema::<#output_ty>)
            }
        }
    });
    // A method's stand-in is read, never called: the tool calls the method itself, which
    // spares every method a second function to check and compile.
    let item = attrs.method_of.is_none().then_some(cleaned);
    quote! {
        #item

        #[doc(hidden)]
        #[allow(
            non_camel_case_types,
            non_snake_case,
            non_upper_case_globals,
            unused_qualifications,
            unused_variables,
            clippy::all,
            clippy::pedantic,
            clippy::nursery
        )]
        const _: () = {
            // schemars' derive writes bare `Some`/`None`; keep them meaning the prelude's
            // even where the user's module defines its own.
            #[allow(unused_imports)]
            use ::core::option::Option::{None, Some};

            // The spanned checks come first, so their messages lead the error output.
            #checks
            #args_def
            #spec

            struct __Tool;

            impl #krate::__private::Tool for __Tool {
                fn spec(&self) -> &#krate::__private::ToolSpec {
                    &__SPEC
                }

                fn input_schema(&self) -> &#krate::__private::Schema {
                    static SCHEMA: #private::OnceLock<#krate::__private::Schema> = #private::OnceLock::new();
                    #private::cached_input_schema(
                        &SCHEMA,
                        <#args_ty as #private::schemars::JsonSchema>::json_schema,
                    )
                }

                #output_schema
                #prepare
                #invoke
            }

            #private::inventory::submit! {
                #private::ToolRegistration::new(&__Tool)
            }
        };
    }
}

/// The type the arguments parse into: the generated struct, or `T` of `Args<T>`.
struct ArgsCode {
    ty: TokenStream,
    definition: TokenStream,
}

impl ArgsCode {
    fn new(krate: &Path, tool: &ToolFn<'_>) -> Self {
        if let Some(param) = tool.args_param() {
            let ParamKind::Args { inner: Some(inner) } = &param.kind else {
                unreachable!("checked in valid.rs: `Args<T>` has one type");
            };
            return ArgsCode {
                ty: checked_argument(param, inner).to_token_stream(),
                definition: TokenStream::new(),
            };
        }
        let private = quote!(#krate::__private);
        let serde_path = LitStr::new(
            &format!("{}::__private::serde", path_text(krate)),
            Span::call_site(),
        );
        let schemars_path = LitStr::new(
            &format!("{}::__private::schemars", path_text(krate)),
            Span::call_site(),
        );
        // A `#[serde(..)]` the user wrote on an argument (`alias`, `deserialize_with`) is
        // serde's derive's to read; without one, the arguments' `Deserialize` is written here,
        // reading only the JSON object a tool's arguments are (see `__private::ArgumentKey`),
        // which costs each tool much less to compile than the derive.
        let derive_deserialize = tool.json_params().any(|(param, _)| {
            param
                .attrs
                .passthrough
                .iter()
                .any(|attr| attr.path().is_ident("serde"))
        });
        let mut fields = Vec::new();
        let mut helpers = Vec::new();
        let mut reads = Vec::new();
        for (index, (param, json)) in tool.json_params().enumerate() {
            let ident = &param.ident;
            // Every use of the type goes through the check.
            let ty = checked_argument(param, param.ty);
            let description = param.attrs.desc.as_ref().map(LitStr::value).or_else(|| {
                tool.docs
                    .arguments
                    .iter()
                    .find(|entry| unraw(&param.ident) == entry.name)
                    .map(|entry| entry.text.clone())
                    .filter(|text| !text.is_empty())
            });
            let description = description.map(|text| quote!(#[schemars(description = #text)]));
            let rename = param
                .attrs
                .rename
                .as_ref()
                .map(|name| quote!(#[serde(rename = #name)]));
            let passthrough = &param.attrs.passthrough;
            let wire = &json.wire_name;
            let slot = format_ident!("__slot_{}", index);
            let mut read = ReadCode {
                field: ident,
                wire: wire.clone(),
                slot: slot.clone(),
                slot_ty: quote!(#ty),
                value: quote! {
                    match #slot {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => #private::missing_argument(#wire)?,
                    }
                },
            };
            let extra = if json.option_inner.is_some() {
                // Optional: serde makes an absent or null `Option` field `None`, schemars leaves
                // it out of `required`, and the input schema drops its `null` branch at run time
                // (`schema::normalize_input`), which costs no generated code.
                TokenStream::new()
            } else if let Some(default) = &param.attrs.default {
                let default_fn = format_ident!("__default_{}", unraw(ident));
                let default_name = LitStr::new(&default_fn.to_string(), Span::call_site());
                helpers.push(quote_spanned! {default.span()=>
                    fn #default_fn() -> #ty {
                        #default
                    }
                });
                // Absent or `null`: the default.
                read.slot_ty = quote!(::core::option::Option<#ty>);
                read.value = quote!(#slot.flatten().unwrap_or_else(#default_fn));
                if derive_deserialize {
                    let deserialize_fn = format_ident!("__deserialize_{}", unraw(ident));
                    let deserialize_name =
                        LitStr::new(&deserialize_fn.to_string(), Span::call_site());
                    helpers.push(quote_spanned! {default.span()=>
                        fn #deserialize_fn<'de, D: #private::serde::Deserializer<'de>>(
                            deserializer: D,
                        ) -> ::core::result::Result<#ty, D::Error> {
                            #private::null_as_default(deserializer, #default_fn)
                        }
                    });
                    quote!(#[serde(default = #default_name, deserialize_with = #deserialize_name)])
                } else {
                    // Read by schemars alone: the argument is not required, and its default
                    // goes into the schema.
                    quote!(#[serde(default = #default_name)])
                }
            } else {
                TokenStream::new()
            };
            fields.push(quote! {
                #description
                #(#passthrough)*
                #rename
                #extra
                #ident: #ty
            });
            reads.push(read);
        }
        // The derive reads `#[serde]` attributes for deserializing; schemars reads them too
        // (names, defaults, closed objects) whichever writes the `Deserialize`.
        let (derive, deserialize) = if derive_deserialize {
            (quote!(#private::serde::Deserialize,), None)
        } else {
            (
                TokenStream::new(),
                Some(deserialize_object(&private, &reads)),
            )
        };
        let definition = quote! {
            #(#helpers)*

            #[derive(#derive #private::schemars::JsonSchema)]
            #[serde(crate = #serde_path, deny_unknown_fields)]
            #[schemars(crate = #schemars_path)]
            struct __ToolArgs {
                #(#fields,)*
            }

            #deserialize
        };
        ArgsCode {
            ty: quote!(__ToolArgs),
            definition,
        }
    }
}

/// How one argument is read from the object: the field, its name in the JSON, the slot its
/// value goes into and the slot's type, and the expression that makes the field's value from
/// the slot once the object is read.
struct ReadCode<'a> {
    field: &'a Ident,
    wire: String,
    slot: Ident,
    slot_ty: TokenStream,
    value: TokenStream,
}

/// The arguments struct's `Deserialize`, written out: one map read, each key an argument's
/// index (`__private::ArgumentKey`), each value read by its own type, each absent argument
/// `None` or `missing field` (`__private::missing_argument`), as serde's derive with
/// `deny_unknown_fields` answers.
fn deserialize_object(private: &TokenStream, reads: &[ReadCode<'_>]) -> TokenStream {
    let names = reads.iter().map(|read| &read.wire);
    let slots = reads.iter().map(|ReadCode { slot, slot_ty, .. }| {
        quote!(let mut #slot: ::core::option::Option<#slot_ty> = ::core::option::Option::None;)
    });
    let arms = reads.iter().enumerate().map(|(index, ReadCode { wire, slot, .. })| {
        quote!(#index => #private::argument_value(&mut __map, &mut #slot, #wire)?,)
    });
    let values = reads
        .iter()
        .map(|ReadCode { field, value, .. }| quote!(#field: #value));
    quote! {
        impl<'de> #private::serde::Deserialize<'de> for __ToolArgs {
            fn deserialize<__D: #private::serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                struct __Object;
                impl<'de> #private::serde::de::Visitor<'de> for __Object {
                    type Value = __ToolArgs;
                    fn expecting(
                        &self,
                        __formatter: &mut ::core::fmt::Formatter<'_>,
                    ) -> ::core::fmt::Result {
                        __formatter.write_str("the tool's arguments, an object")
                    }
                    fn visit_map<__A: #private::serde::de::MapAccess<'de>>(
                        self,
                        mut __map: __A,
                    ) -> ::core::result::Result<__ToolArgs, __A::Error> {
                        #(#slots)*
                        while let ::core::option::Option::Some(__key) =
                            __map.next_key_seed(#private::ArgumentKey(&[#(#names),*]))?
                        {
                            match __key {
                                #(#arms)*
                                _ => {}
                            }
                        }
                        ::core::result::Result::Ok(__ToolArgs { #(#values,)* })
                    }
                }
                __deserializer.deserialize_map(__Object)
            }
        }
    }
}

fn spec(krate: &Path, attrs: &ToolAttrs, tool: &ToolFn<'_>) -> TokenStream {
    let private = quote!(#krate::__private);
    let fn_ident = &tool.item.sig.ident;
    let name = attrs
        .name
        .as_ref()
        .map_or_else(|| unraw(fn_ident), LitStr::value);
    let title = option_str(attrs.title.as_ref().map(LitStr::value));
    let description = attrs.description.as_ref().map_or_else(
        || tool.docs.description.clone(),
        |text| text.value().trim().to_owned(),
    );
    let effect = if attrs.read_only.is_some() {
        quote!(ReadOnly)
    } else if attrs.destructive.is_some() {
        quote!(Destructive)
    } else {
        quote!(Mutating)
    };
    let idempotent = attrs.read_only.is_some() || attrs.idempotent.is_some();
    let open_world = attrs.closed_world.is_none();
    let aliases: Vec<_> = attrs
        .aliases
        .iter()
        .map(|alias| quote!(#private::Cow::Borrowed(#alias)))
        .collect();
    let tags: Vec<_> = attrs
        .tags
        .iter()
        .map(|tag| quote!(#private::Cow::Borrowed(#tag)))
        .collect();
    let resources: Vec<_> = tool
        .json_params()
        .filter_map(|(_, json)| {
            let (kind, _) = json.resource?;
            let wire = &json.wire_name;
            let kind = Ident::new(kind.variant(), Span::call_site());
            Some(quote!(#krate::__private::ResourceArg::new(#wire, #krate::__private::ResourceKind::#kind)))
        })
        .collect();
    let str_cow = quote!(#private::Cow<'static, ::core::primitive::str>);
    let (alias_static, alias_ref) = static_array(&format_ident!("__ALIASES"), &str_cow, &aliases);
    let (tag_static, tag_ref) = static_array(&format_ident!("__TAGS"), &str_cow, &tags);
    let (resource_static, resource_ref) = static_array(
        &format_ident!("__RESOURCES"),
        &quote!(#krate::__private::ResourceArg),
        &resources,
    );
    let approval = if attrs.self_approving.is_some() {
        quote!(SelfApproving)
    } else {
        quote!(Policy)
    };
    let timeout = match &attrs.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let classified = attrs.read_only_if.is_some();
    // A method's tool requires the value it is called on.
    let required_state = match &attrs.receiver {
        Some(receiver) => quote!(<#receiver as #private::MethodOf>::REQUIRED),
        None => quote!(&[]),
    };
    // Spanned at the function's name, so `line!()` is the function's line.
    let location = quote_spanned! {fn_ident.span()=>
        crate_name: match ::core::option_env!("CARGO_CRATE_NAME") {
            ::core::option::Option::Some(name) => name,
            ::core::option::Option::None => "",
        },
        module: ::core::module_path!(),
        file: ::core::file!(),
        line: ::core::line!(),
    };
    quote! {
        #alias_static
        #tag_static
        #resource_static
        static __SPEC: #krate::__private::ToolSpec = #krate::__private::ToolSpec::from_parts(#private::SpecParts {
            name: #name,
            title: #title,
            description: #description,
            effect: #krate::__private::Effect::#effect,
            idempotent: #idempotent,
            open_world: #open_world,
            aliases: #alias_ref,
            tags: #tag_ref,
            resources: #resource_ref,
            approval: #krate::__private::ApprovalKind::#approval,
            timeout_ms: #timeout,
            classified_per_call: #classified,
            required_state: #required_state,
            #location
        });
    }
}

/// A `'static` slice of `items`: a named static when there are any (a `&[..]` of values with
/// destructors is not promoted to `'static`), a bare `&[]` when there are none.
fn static_array(
    name: &Ident,
    ty: &TokenStream,
    items: &[TokenStream],
) -> (TokenStream, TokenStream) {
    if items.is_empty() {
        return (TokenStream::new(), quote!(&[]));
    }
    let count = items.len();
    (
        quote!(static #name: [#ty; #count] = [#(#items),*];),
        quote!(&#name),
    )
}

/// Checks spanned at the user's types, so a type that cannot be an argument or an output is
/// reported where it is written, and reported once: the rest of the code uses the types the
/// checks passed (see `__private::Checked`), an alias for each argument and a constant for the
/// return type (an alias could not hold an elided lifetime such as `&str`'s).
fn checks(private: &TokenStream, tool: &ToolFn<'_>) -> TokenStream {
    let mut checks = Vec::new();
    for param in &tool.params {
        let ty = match &param.kind {
            ParamKind::Json(_) => param.ty,
            ParamKind::Args { inner: Some(inner) } => inner,
            _ => continue,
        };
        let checked = checked_argument(param, ty);
        checks.push(quote_spanned! {ty.span()=>
            type #checked = <#ty as #private::Checked<{
                #private::assert_argument_schema::<
                    #ty,
                    _,
                    { #private::assert_argument_deserialize::<#ty, _>() },
                >()
            }>>::Type;
        });
    }
    let output = output_type(tool);
    let checked = return_check();
    checks.push(quote_spanned! {output.span()=>
        const #checked: ::core::primitive::bool = #private::assert_tool_return::<#output>();
    });
    quote!(#(#checks)*)
}

/// The alias of an argument's type that passed the checks.
fn checked_argument(param: &Param<'_>, ty: &Type) -> Ident {
    format_ident!("__Arg_{}", unraw(&param.ident), span = ty.span())
}

/// The return type's check.
fn return_check() -> Ident {
    format_ident!("__RETURN")
}

/// The return type that passed its check.
fn checked_output(private: &TokenStream, tool: &ToolFn<'_>) -> TokenStream {
    let output = output_type(tool);
    let checked = return_check();
    quote!(<#output as #private::Checked<{ #checked }>>::Type)
}

/// `true` when the return type is written as `()`, `String` or `&str`, or a `Result` of one:
/// outputs that are text, with no output schema.
fn returns_text(tool: &ToolFn<'_>) -> bool {
    fn is_text(ty: &Type) -> bool {
        match ty {
            Type::Tuple(tuple) => tuple.elems.is_empty(),
            Type::Reference(reference) => {
                matches!(&*reference.elem, Type::Path(path) if path.path.is_ident("str"))
            }
            Type::Path(path) => path.qself.is_none() && path.path.is_ident("String"),
            _ => false,
        }
    }
    let Some(ty) = tool.return_type() else {
        return true;
    };
    if is_text(ty) {
        return true;
    }
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return false;
    };
    last.ident == "Result"
        && matches!(arguments.args.first(), Some(syn::GenericArgument::Type(ok)) if is_text(ok))
}

fn output_type(tool: &ToolFn<'_>) -> TokenStream {
    tool.return_type()
        .map_or_else(|| quote!(()), ToTokens::to_token_stream)
}

fn prepare(
    krate: &Path,
    attrs: &ToolAttrs,
    tool: &ToolFn<'_>,
    args_ty: &TokenStream,
) -> TokenStream {
    let private = quote!(#krate::__private);
    let (args, resources, effect, prepared, arguments) = (
        local("args"),
        local("resources"),
        local("effect"),
        local("prepared"),
        local("arguments"),
    );
    let pushes: Vec<TokenStream> = tool
        .json_params()
        .filter_map(|(param, json)| {
            let (kind, _) = json.resource?;
            let ident = &param.ident;
            let wire = &json.wire_name;
            let kind = Ident::new(kind.variant(), Span::call_site());
            // The function path is spanned at the type: a type that cannot be a resource is
            // reported there.
            let push = quote_spanned!(param.ty.span()=> #private::push_resources);
            Some(quote!(#push(&mut #resources, #wire, #krate::__private::ResourceKind::#kind, &#args.#ident);))
        })
        .collect();
    let collect_resources = (!pushes.is_empty()).then(|| {
        quote! {
            let #resources = {
                let mut #resources = ::std::vec::Vec::new();
                #(#pushes)*
                #resources
            };
        }
    });
    let with_resources = collect_resources
        .is_some()
        .then(|| quote!(let #prepared = #prepared.with_resources(#resources);));
    let classify = attrs.read_only_if.as_ref().map(|classifier| {
        let call = if tool.args_param().is_some() {
            quote!(#classifier(&#args))
        } else {
            // Each JSON argument by reference, `Option<&T>` for an optional one.
            let fields = tool.json_params().map(|(param, json)| {
                let ident = &param.ident;
                if json.option_inner.is_some() {
                    quote!(#args.#ident.as_ref())
                } else {
                    quote!(&#args.#ident)
                }
            });
            quote!(#classifier(#(#fields),*))
        };
        quote!(let #effect = if #call { #krate::__private::Effect::ReadOnly } else { __SPEC.effect };)
    });
    let with_effect = classify
        .is_some()
        .then(|| quote!(let #prepared = #prepared.with_effect(#effect);));
    // Resources and the classification read the arguments before they move into `Prepared`.
    quote! {
        fn prepare(
            &self,
            #arguments: &::core::primitive::str,
        ) -> ::core::result::Result<#krate::__private::Prepared, #krate::__private::ToolError> {
            let #args: #args_ty =
                #krate::__private::parse_arguments(&__SPEC.name, #krate::__private::Tool::input_schema(self), #arguments)?;
            #collect_resources
            #classify
            let #prepared = #krate::__private::Prepared::new(#args);
            #with_resources
            #with_effect
            ::core::result::Result::Ok(#prepared)
        }
    }
}

fn invoke(
    krate: &Path,
    attrs: &ToolAttrs,
    tool: &ToolFn<'_>,
    args_ty: &TokenStream,
) -> TokenStream {
    let private = quote!(#krate::__private);
    let fn_ident = &tool.item.sig.ident;
    let (args, ctx, prepared) = (local("args"), local("ctx"), local("prepared"));
    let mut extract = Vec::new();
    let mut receiver = None;
    let mut call_args = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Args { .. } => call_args.push(quote!(#krate::__private::Args(#args))),
            ParamKind::Context if index == 0 && attrs.receiver.is_some() => {
                // A method's receiver, its stand-in's first parameter, borrowed from the
                // coordinator's state and lent as `&self`.
                let self_ty = attrs.receiver.as_ref();
                let binding = local(&format!("context_{index}"));
                // After the arguments are taken, so they move as a function's do, and an
                // `Option` matched in place: less code per method than `?` on a `Result`.
                receiver = Some(quote! {
                    let ::core::option::Option::Some(#binding) = #private::receiver::<#self_ty>(#ctx) else {
                        return #private::missing_receiver::<#self_ty>();
                    };
                });
                call_args.push(quote!(#binding));
            }
            ParamKind::Context => {
                let ty: &Type = param.ty;
                let binding = local(&format!("context_{index}"));
                // Spanned at the type: a type that is no context is reported there.
                let from_context = quote_spanned!(ty.span()=> <#ty as #krate::__private::FromContext<'_>>::from_context);
                extract.push(quote!(let #binding = #from_context(#ctx)?;));
                call_args.push(quote!(#binding));
            }
            ParamKind::Json(_) => {
                let ident = &param.ident;
                call_args.push(quote!(#args.#ident));
            }
        }
    }
    let output_ty = checked_output(&private, tool);
    let asyncness = tool.item.sig.asyncness;
    let awaited = asyncness.map(|_| quote!(.await));
    let callee = match &attrs.method_of {
        Some(self_ty) => quote!(<#self_ty>::#fn_ident),
        None => quote!(#fn_ident),
    };
    let body = quote! {
        #asyncness fn __invoke(
            #prepared: #krate::__private::Prepared,
            #ctx: &#krate::__private::ToolContext,
        ) -> ::core::result::Result<#krate::__private::ToolOutput, #krate::__private::ToolError> {
            let #args: #args_ty = #prepared.take()?;
            #receiver
            #(#extract)*
            <#output_ty as #krate::__private::IntoToolResult>::into_tool_result(#callee(#(#call_args),*)#awaited)
        }
    };
    let run = if asyncness.is_some() {
        quote!(#krate::__private::ToolFuture::new(__invoke(#prepared, #ctx)))
    } else if attrs.blocking.is_some() {
        let quick = attrs.blocking_quick.is_some();
        quote!(#krate::__private::ToolFuture::new(#private::run_blocking(#ctx, #quick, move |#ctx| __invoke(#prepared, #ctx))))
    } else {
        quote!(#krate::__private::ToolFuture::ready(__invoke(#prepared, #ctx)))
    };
    quote! {
        fn invoke<'a>(
            &'a self,
            #prepared: #krate::__private::Prepared,
            #ctx: &'a #krate::__private::ToolContext,
        ) -> #krate::__private::ToolFuture<'a> {
            #body
            #run
        }
    }
}

/// A local variable of generated code, hygienic: it neither hides nor is hidden by the user's
/// names (a tool function may well be called `args` or `ctx`).
fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn path_text(path: &Path) -> String {
    let mut text = String::new();
    if path.leading_colon.is_some() {
        text.push_str("::");
    }
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    text.push_str(&segments.join("::"));
    text
}

fn option_str(value: Option<String>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}
