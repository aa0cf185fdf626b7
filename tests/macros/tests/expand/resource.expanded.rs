use std::collections::BTreeMap;
use mcp_runtime::prelude::*;
/// The project's README.
async fn readme() -> String {
    "# Readme".to_owned()
}
///The `#[resource]` handler of [`readme()`]: register it with `.handler::<readme>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct readme {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::ResourceHandler for readme {
        fn descriptor(&self) -> _mcp::Resource {
            _mcp::ResourceSpec {
                uri: "file:///README.md",
                name: "readme",
                title: _mcp::Option::None,
                description: _mcp::Option::Some("The project's README."),
                mime_type: _mcp::Option::Some("text/markdown"),
            }
                .resource()
        }
        fn read(&self, _: _mcp::Ctx) -> _mcp::ResourceFuture<'_> {
            _mcp::Box::pin(async move {
                let __mcp_output = readme().await;
                _mcp::IntoResourceResult::into_resource_outcome(
                    __mcp_output,
                    "file:///README.md",
                    _mcp::Option::Some("text/markdown"),
                )
            })
        }
    }
    impl _mcp::Register for readme {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.resource(readme {})
        }
    }
};
/// One item's data.
async fn item(vars: BTreeMap<String, String>) -> Result<String, McpError> {
    Ok(vars.get("id").cloned().unwrap_or_default())
}
///The `#[resource]` handler of [`item()`]: register it with `.handler::<item>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct item {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::ResourceTemplateHandler for item {
        fn descriptor(&self) -> _mcp::ResourceTemplate {
            _mcp::ResourceSpec {
                uri: "test://items/{id}",
                name: "item",
                title: _mcp::Option::None,
                description: _mcp::Option::Some("One item's data."),
                mime_type: _mcp::Option::None,
            }
                .template()
        }
        fn read(
            &self,
            __mcp_uri: _mcp::String,
            __mcp_variables: _mcp::BTreeMap<_mcp::String, _mcp::String>,
            __mcp_ctx: _mcp::Ctx,
        ) -> _mcp::ResourceFuture<'_> {
            let mut __mcp_parts = _mcp::CallParts::from_strings(
                __mcp_variables,
                __mcp_ctx,
            );
            _mcp::Box::pin(async move {
                let __mcp_arg0: BTreeMap<String, String> = _mcp::FromCall::from_call(
                    &mut __mcp_parts,
                )?;
                let __mcp_output = item(__mcp_arg0).await;
                _mcp::IntoResourceResult::into_resource_outcome(
                    __mcp_output,
                    &__mcp_uri,
                    _mcp::Option::None,
                )
            })
        }
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(&[<BTreeMap<String, String> as _mcp::FromCall>::SHARED])
        }
        fn needs_signer(&self) -> bool {
            _mcp::needs_signer(
                &[<BTreeMap<String, String> as _mcp::FromCall>::NEEDS_SIGNER],
            )
        }
    }
    impl _mcp::Register for item {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.resource_template(item {})
        }
    }
};
fn main() {}
