use super::{Decoded, decode};
use serde_json::{Value, json};

fn reply(line: &str) -> Value {
    match decode(line.as_bytes()) {
        Decoded::Reply(reply) => serde_json::from_slice(&reply).unwrap_or_default(),
        Decoded::Message(_) => json!("message"),
        Decoded::Skip => json!("skip"),
    }
}

#[test]
fn answers_every_kind_of_bad_line() {
    let garbage = reply("hello");
    assert_eq!(
        (&garbage["id"], &garbage["error"]["code"]),
        (&Value::Null, &json!(-32700))
    );
    let broken = reply(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","#);
    assert_eq!(
        (&broken["id"], &broken["error"]["code"]),
        (&json!(5), &json!(-32700))
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"d","params":{}"#,
        "[".repeat(1000)
    );
    let deep = reply(&deep);
    assert_eq!(
        (&deep["id"], &deep["error"]["code"]),
        (&json!("d"), &json!(-32700))
    );
    let params = reply(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":5}"#);
    assert_eq!(
        (&params["id"], &params["error"]["code"]),
        (&json!(6), &json!(-32602))
    );
    for id in [
        "9223372036854775808",
        "1.5",
        "1e300",
        "-9223372036854775809",
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        let answer = reply(&line);
        let echoed: Value = serde_json::from_str(id).unwrap_or_default();
        assert_eq!(
            (&answer["id"], &answer["error"]["code"]),
            (&echoed, &json!(-32600)),
            "{line}"
        );
    }
    for id in ["9223372036854775807", "-9223372036854775808"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert_eq!(reply(&line), json!("message"), "{line}");
    }
    let batch = reply(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(
        (&batch["id"], &batch["error"]["code"]),
        (&Value::Null, &json!(-32600))
    );
}

#[test]
fn passes_messages_and_skips_blank_lines() {
    assert_eq!(
        reply(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        json!("message")
    );
    assert_eq!(
        reply("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"),
        json!("message")
    );
    assert_eq!(reply(" \r\n"), json!("skip"));
}
