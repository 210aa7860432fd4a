//! One task solved four ways: eager (every tool in every request), lazy names (the tools
//! discovered by name first), lazy search (found by a query each first), and code mode (the
//! tools discovered by name, then one script).

use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, DISCOVERY_TOOL_NAME, DiscoveryMode, Registry, Session, SessionOptions,
};
use serde_json::json;

use crate::conversation::Conversation;
use crate::tasks::Task;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Eager,
    Names,
    Search,
    Code,
}

pub const WAYS: [Way; 4] = [Way::Eager, Way::Names, Way::Search, Way::Code];

impl Way {
    pub fn label(self) -> &'static str {
        match self {
            Way::Eager => "eager",
            Way::Names => "lazy names",
            Way::Search => "lazy search",
            Way::Code => "code mode",
        }
    }
}

/// What one way cost: tokens over the conversation, round trips, and any error results.
pub struct Cost {
    pub tokens: usize,
    pub requests: usize,
    pub errors: Vec<String>,
}

/// Solves `task` the way `way`, with `eager` (every tool eager) or `lazy` (every tool lazy).
pub async fn solve(task: &Task, way: Way, eager: &Registry, lazy: &Registry) -> Cost {
    let session: Session = match way {
        Way::Eager => eager.session(),
        Way::Names => lazy.session(),
        Way::Search => lazy.session_with(SessionOptions::new().mode(DiscoveryMode::Search)),
        Way::Code => lazy.session_with(SessionOptions::new().code_mode(CodeMode::new())),
    };
    let mut conversation = Conversation::new(&session, task.question);
    match way {
        Way::Eager => {}
        Way::Names | Way::Code => {
            let names = json!({"toolNames": task.tools});
            conversation.turn(vec![(DISCOVERY_TOOL_NAME, names)]).await;
        }
        Way::Search => {
            // One query per tool, in the model's words: the tool's name as a phrase.
            let queries = (task.tools.iter())
                .map(|tool| {
                    (
                        DISCOVERY_TOOL_NAME,
                        json!({"query": tool.replace('_', " "), "limit": 3}),
                    )
                })
                .collect();
            conversation.turn(queries).await;
        }
    }
    if way == Way::Code {
        conversation
            .turn(vec![(CODE_TOOL_NAME, json!({"code": task.script}))])
            .await;
    } else {
        let mut done = Vec::new();
        loop {
            let calls = (task.plan)(&done);
            if calls.is_empty() {
                break;
            }
            done.push(conversation.turn(calls).await);
        }
    }
    conversation.turn(Vec::new()).await; // the answer
    Cost {
        tokens: conversation.tokens,
        requests: conversation.requests,
        errors: conversation.errors,
    }
}
