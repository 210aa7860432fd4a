//! The texts of upstream prompts, resources and resource templates, cleaned as a tool's are.

use rmcp::model::{Prompt, Resource, ResourceTemplate};

use super::{Removals, clean_string};

/// Cleans, in place, what a client shows of `prompt` or sends its model: title,
/// description, and each argument's title and description. The name is the gateway's own
/// (`SERVER__PROMPT`), made valid apart.
pub(crate) fn clean_prompt(prompt: &mut Prompt, max_chars: usize) -> Removals {
    let mut removals = Removals::default();
    let arguments = prompt.arguments.iter_mut().flatten();
    let argument_texts =
        arguments.flat_map(|argument| [&mut argument.title, &mut argument.description]);
    for text in [&mut prompt.title, &mut prompt.description]
        .into_iter()
        .chain(argument_texts)
        .flatten()
    {
        clean_string(text, max_chars, &mut removals);
    }
    removals
}

/// Cleans, in place, the name, title and description of `resource`; its URI is left as it
/// is: the upstream reads it verbatim.
pub(crate) fn clean_resource(resource: &mut Resource, max_chars: usize) -> Removals {
    let mut removals = Removals::default();
    clean_string(&mut resource.name, max_chars, &mut removals);
    for text in [&mut resource.title, &mut resource.description]
        .into_iter()
        .flatten()
    {
        clean_string(text, max_chars, &mut removals);
    }
    removals
}

/// Cleans, in place, the name, title and description of `template`; its URI template is
/// left as it is.
pub(crate) fn clean_template(template: &mut ResourceTemplate, max_chars: usize) -> Removals {
    let mut removals = Removals::default();
    clean_string(&mut template.name, max_chars, &mut removals);
    for text in [&mut template.title, &mut template.description]
        .into_iter()
        .flatten()
    {
        clean_string(text, max_chars, &mut removals);
    }
    removals
}

#[cfg(test)]
mod tests {
    use rmcp::model::PromptArgument;

    use super::*;

    #[test]
    fn every_text_of_a_prompt_is_cleaned() {
        let argument = PromptArgument::new("city")
            .with_title("Ci\u{200b}ty")
            .with_description("The city\u{1b}[31m");
        let mut prompt = Prompt::new(
            "weather",
            Some("Ask\u{e0041} about the weather"),
            Some(vec![argument]),
        )
        .with_title("Weather\u{202e}");
        let removals = clean_prompt(&mut prompt, 2048);
        assert_eq!(prompt.description.as_deref(), Some("Ask about the weather"));
        assert_eq!(prompt.title.as_deref(), Some("Weather"));
        let argument = &prompt.arguments.as_ref().expect("arguments")[0];
        assert_eq!(
            (argument.title.as_deref(), argument.description.as_deref()),
            (Some("City"), Some("The city"))
        );
        assert_eq!(argument.name, "city");
        assert!(!removals.is_empty());
    }

    #[test]
    fn resources_and_templates_keep_their_uris_and_lose_hidden_text() {
        let mut resource =
            Resource::new("file:///a\u{200b}b", "notes\u{200b}").with_description("x".repeat(30));
        let removals = clean_resource(&mut resource, 10);
        assert_eq!(resource.uri, "file:///a\u{200b}b");
        assert_eq!(resource.name, "notes");
        assert!(
            resource
                .description
                .as_deref()
                .expect("a description")
                .starts_with("xxxxxxxxxx …")
        );
        assert_eq!(removals.cut_texts, 1);
        let mut template =
            ResourceTemplate::new("file:///{path}", "file\u{1b}[0m").with_title("Fi\u{200b}le");
        clean_template(&mut template, 2048);
        assert_eq!(
            (template.name.as_str(), template.title.as_deref()),
            ("file", Some("File"))
        );
        assert_eq!(template.uri_template, "file:///{path}");
    }
}
