//! Loading a page in a real headless chromium and recording every network request and every
//! console error, through the DevTools protocol over a pipe (`--remote-debugging-pipe`).
//!
//! Why the protocol and not chromium's log (`--enable-logging=stderr --v=1`): the log's lines
//! and verbosity levels are not an interface and change between releases, and a request the
//! log does not mention would pass unseen. The protocol reports each request before it is sent
//! (`Network.requestWillBeSent`, whatever its scheme and whether or not it could succeed),
//! each console call (`Runtime.consoleAPICalled`), each uncaught exception
//! (`Runtime.exceptionThrown`) and each browser-side error such as a failed resource
//! (`Log.entryAdded`). No port is opened: chromium reads commands on fd 3 and answers on
//! fd 4, each message JSON ended by a NUL byte. A plain `sh` maps the pipes to those fds, so
//! no unsafe code is needed.

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Value};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What loading the page did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageLoad {
    /// `Page.loadEventFired` arrived.
    pub loaded: bool,
    /// Every URL requested other than the page itself and `data:` URLs.
    pub requests: Vec<String>,
    /// Console errors, uncaught exceptions and browser error entries, one line each.
    pub errors: Vec<String>,
}

impl PageLoad {
    /// `None` when the page loaded with no request and no error; else what went wrong.
    pub fn problems(&self) -> Option<String> {
        let mut lines = Vec::new();
        if !self.loaded {
            lines.push("the page never fired its load event".to_string());
        }
        lines.extend(self.requests.iter().map(|r| format!("network request: {r}")));
        lines.extend(self.errors.iter().map(|e| format!("console error: {e}")));
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// The chromium on PATH (`chromium`, as Debian installs it, or `chromium-browser`,
/// `google-chrome`), if any.
pub fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

struct Browser {
    child: Child,
    commands: std::process::ChildStdin,
    events: mpsc::Receiver<Value>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn start(chromium: &Path) -> Result<Browser> {
        let profile = tempfile::tempdir().context("a temporary chromium profile")?;
        let mut child = Command::new("sh")
            .arg("-c")
            // fd 3 <- our commands (stdin), fd 4 -> our reader (stdout); chromium's own stdin
            // and stdout are then closed off so nothing else lands on the protocol stream.
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null")
            .arg(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-pipe",
                "about:blank",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", chromium.display()))?;
        let commands = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        message.pop_if(|b| *b == 0);
                        if let Ok(v) = serde_json::from_slice::<Value>(&message) {
                            if tx.send(v).is_err() {
                                break;
                            }
                        }
                    }
                }
            }
        });
        Ok(Browser { child, commands, events, next_id: 0, _profile: profile })
    }

    fn send(&mut self, method: &str, params: Value, session: Option<&str>) -> Result<u64> {
        self.next_id += 1;
        let mut message = json!({"id": self.next_id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message)?;
        bytes.push(0);
        self.commands.write_all(&bytes).with_context(|| format!("chromium exited before taking {method}"))?;
        self.commands.flush()?;
        Ok(self.next_id)
    }

    /// Waits for the answer to command `id`, handing every event that arrives meanwhile to
    /// `on_event`.
    fn answer(&mut self, id: u64, deadline: Instant, on_event: &mut dyn FnMut(&Value)) -> Result<Value> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.events.recv_timeout(left) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => bail!("chromium did not answer command {id} in time"),
                Err(mpsc::RecvTimeoutError::Disconnected) => bail!("chromium exited before answering command {id}"),
            };
            if message.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(err) = message.get("error") {
                    bail!("chromium refused command {id}: {err}");
                }
                return Ok(message.get("result").cloned().unwrap_or(Value::Null));
            }
            on_event(&message);
        }
    }

    fn call(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
        deadline: Instant,
        on_event: &mut dyn FnMut(&Value),
    ) -> Result<Value> {
        let id = self.send(method, params, session)?;
        self.answer(id, deadline, on_event)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.send("Browser.close", json!({}), None);
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Opens `page` (a local file) in headless `chromium` and records what it requested and what
/// it reported, until the load event and then `settle` of quiet (late requests, timers).
pub fn load(chromium: &Path, page: &Path, settle: Duration) -> Result<PageLoad> {
    Ok(load_evaluating(chromium, page, settle, &[])?.0)
}

/// [`load`], then each of `expressions` evaluated in the page, in order (a test clicking a
/// link and reading where it led); their values, as JSON, come back in the same order.
pub fn load_evaluating(
    chromium: &Path,
    page: &Path,
    settle: Duration,
    expressions: &[&str],
) -> Result<(PageLoad, Vec<Value>)> {
    let page = page.canonicalize().with_context(|| format!("{}", page.display()))?;
    let url = format!("file://{}", page.display());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut browser = Browser::start(chromium)?;
    let mut result = PageLoad::default();
    let mut ignore = |_: &Value| {};
    let target = browser.call("Target.createTarget", json!({"url": "about:blank"}), None, deadline, &mut ignore)?;
    let target_id = target["targetId"].as_str().context("Target.createTarget gave no targetId")?.to_string();
    let attached = browser.call(
        "Target.attachToTarget",
        json!({"targetId": target_id, "flatten": true}),
        None,
        deadline,
        &mut ignore,
    )?;
    let session = attached["sessionId"].as_str().context("Target.attachToTarget gave no sessionId")?.to_string();
    let s = Some(session.as_str());
    let mut loaded_at: Option<Instant> = None;
    {
        let mut record = |event: &Value| record_event(event, &session, &url, &mut result, &mut loaded_at);
        for domain in ["Network.enable", "Runtime.enable", "Log.enable", "Page.enable"] {
            browser.call(domain, json!({}), s, deadline, &mut record)?;
        }
        browser.call("Page.navigate", json!({"url": url}), s, deadline, &mut record)?;
    }
    // Events after the answer to Page.navigate: until the load event and `settle` after it.
    loop {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        let until = match loaded_at {
            Some(t) if now >= t + settle => break,
            Some(t) => t + settle,
            None => deadline,
        };
        match browser.events.recv_timeout(until.saturating_duration_since(now)) {
            Ok(event) => record_event(&event, &session, &url, &mut result, &mut loaded_at),
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("chromium exited while loading {url}"),
        }
    }
    result.loaded = loaded_at.is_some();
    let mut values = Vec::new();
    for expression in expressions {
        let mut record = |event: &Value| record_event(event, &session, &url, &mut result, &mut loaded_at);
        let params = json!({"expression": expression, "returnByValue": true});
        let answer = browser.call("Runtime.evaluate", params, Some(session.as_str()), deadline, &mut record)?;
        if let Some(thrown) = answer.get("exceptionDetails") {
            bail!("evaluating {expression:?} threw: {thrown}");
        }
        values.push(answer["result"]["value"].clone());
    }
    Ok((result, values))
}

fn record_event(event: &Value, session: &str, url: &str, result: &mut PageLoad, loaded_at: &mut Option<Instant>) {
    if event.get("sessionId").and_then(Value::as_str) != Some(session) {
        return;
    }
    let params = &event["params"];
    match event.get("method").and_then(Value::as_str).unwrap_or_default() {
        "Page.loadEventFired" => {
            loaded_at.get_or_insert_with(Instant::now);
        }
        "Network.requestWillBeSent" => {
            let requested = params["request"]["url"].as_str().unwrap_or_default();
            if requested != url && !requested.starts_with("data:") {
                result.requests.push(requested.to_string());
            }
        }
        "Runtime.consoleAPICalled" => {
            let kind = params["type"].as_str().unwrap_or_default();
            if kind == "error" || kind == "assert" {
                let text: Vec<String> = params["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| {
                        a.get("value").map_or_else(
                            || a["description"].to_string(),
                            |v| v.as_str().map_or(v.to_string(), str::to_string),
                        )
                    })
                    .collect();
                result.errors.push(format!("console.{kind}: {}", text.join(" ")));
            }
        }
        "Runtime.exceptionThrown" => {
            let d = &params["exceptionDetails"];
            let text = d["exception"]["description"].as_str().or(d["text"].as_str()).unwrap_or("exception");
            result.errors.push(format!("uncaught: {text}"));
        }
        "Log.entryAdded" => {
            let entry = &params["entry"];
            if entry["level"].as_str() == Some("error") {
                result.errors.push(format!(
                    "{}: {}",
                    entry["source"].as_str().unwrap_or("log"),
                    entry["text"].as_str().unwrap_or_default()
                ));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_that_exits_at_once_is_an_error_not_a_clean_page() {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("p.html");
        std::fs::write(&page, "<!DOCTYPE html><title>t</title>").unwrap();
        let err = load(Path::new("/bin/false"), &page, Duration::from_millis(10)).unwrap_err();
        // Whether it died before our first command or before answering it, the load fails.
        assert!(format!("{err:#}").contains("chromium exited before"), "{err:#}");
    }

    #[test]
    fn problems_name_each_request_and_error() {
        let load =
            PageLoad { loaded: true, requests: vec!["http://x/y.png".into()], errors: vec!["console.error: e".into()] };
        let p = load.problems().unwrap();
        assert!(p.contains("network request: http://x/y.png") && p.contains("console error: console.error: e"), "{p}");
        assert_eq!(PageLoad { loaded: true, ..PageLoad::default() }.problems(), None);
        assert!(PageLoad::default().problems().unwrap().contains("never fired its load event"));
    }
}
