use mcp_runtime::prelude::*;
#[serde(rename_all = "camelCase")]
struct Signup {
    /// What to call you.
    #[elicit(min_length = 1, max_length = 80)]
    display_name: String,
    #[elicit(title = "Email", format = "email")]
    email: Option<String>,
    #[elicit(minimum = 13, maximum = 130, default = 18)]
    age: u8,
    #[serde(skip)]
    internal: bool,
}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    let _ = <String as _mcp::ElicitField>::REQUIRED;
    let _ = <Option<String> as _mcp::ElicitField>::REQUIRED;
    let _ = <u8 as _mcp::ElicitField>::REQUIRED;
    #[automatically_derived]
    impl _mcp::ElicitForm for Signup
    where
        for<'__mcp> String: _mcp::ElicitField,
        for<'__mcp> Option<String>: _mcp::ElicitField,
        for<'__mcp> u8: _mcp::ElicitField,
    {
        fn form_schema() -> &'static _mcp::RenderedSchema {
            static SCHEMA: _mcp::OnceLock<_mcp::RenderedSchema> = _mcp::OnceLock::new();
            SCHEMA
                .get_or_init(|| {
                    _mcp::FormSchema::new()
                        .field::<
                            String,
                        >(
                            "displayName",
                            _mcp::FieldOptions {
                                description: _mcp::Option::Some("What to call you."),
                                min_length: _mcp::Option::Some(1u64),
                                max_length: _mcp::Option::Some(80u64),
                                .._mcp::FieldOptions::EMPTY
                            },
                        )
                        .field::<
                            Option<String>,
                        >(
                            "email",
                            _mcp::FieldOptions {
                                title: _mcp::Option::Some("Email"),
                                format: _mcp::Option::Some(_mcp::StringFormat::Email),
                                .._mcp::FieldOptions::EMPTY
                            },
                        )
                        .field::<
                            u8,
                        >(
                            "age",
                            _mcp::FieldOptions {
                                minimum: _mcp::Option::Some(13f64),
                                maximum: _mcp::Option::Some(130f64),
                                default: _mcp::Option::Some(_mcp::DefaultValue::Int(18i64)),
                                .._mcp::FieldOptions::EMPTY
                            },
                        )
                        .render()
                })
        }
        fn decode(
            __mcp_form: &mut _mcp::FormDecoder<'_>,
        ) -> _mcp::Result<Self, _mcp::FormError> {
            _mcp::Result::Ok(Self {
                display_name: __mcp_form.field::<String>("displayName")?,
                email: __mcp_form.field::<Option<String>>("email")?,
                age: __mcp_form.field::<u8>("age")?,
                internal: _mcp::Default::default(),
            })
        }
    }
};
fn main() {}
