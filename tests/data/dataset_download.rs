//! `data fetch` against a real HTTP server on 127.0.0.1 (hand-written
//! HTTP/1.1), never the internet.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use converse_tui::config::Paths;
use converse_tui::core::dataset::download::{
    DownloadError, FetchOptions, NoProgress, domain_files, fetch_domain,
};
use converse_tui::core::dataset::{DatasetSource, Domain, TaskFilter, load_tasks, verify};
use converse_tui::headless::data::{
    DataFetchArgs, DataPathArgs, DataVerifyArgs, ProgressMode, data_fetch, data_path, data_verify,
};

#[derive(Clone)]
enum Reply {
    Ok(String),
    Status(u16),
    /// Accept, read the request, say nothing for this long.
    Hang(Duration),
    /// Declare more bytes than are sent, then close.
    Truncated {
        declared: usize,
        sent: String,
    },
}

type Rule = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

struct Server {
    base: String,
    requests: Arc<Mutex<Vec<String>>>,
}

fn serve(rule: Rule) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/resources", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&requests);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let rule = Arc::clone(&rule);
            let log = Arc::clone(&log);
            thread::spawn(move || handle(stream, &*rule, &log));
        }
    });
    Server { base, requests }
}

fn handle(mut stream: TcpStream, rule: &(dyn Fn(&str) -> Reply + Send + Sync), log: &Mutex<Vec<String>>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
    let path = path.strip_prefix("/resources/").unwrap_or(&path).to_string();
    log.lock().unwrap().push(path.clone());
    let _ = match rule(&path) {
        Reply::Ok(body) => write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
        Reply::Status(code) => {
            write!(stream, "HTTP/1.1 {code} Nope\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot here\n")
        }
        Reply::Hang(d) => {
            thread::sleep(d);
            Ok(())
        }
        Reply::Truncated { declared, sent } => {
            write!(stream, "HTTP/1.1 200 OK\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n{sent}")
        }
    };
    let _ = stream.flush();
}

/// Plausible content for each upstream file.
fn content(path: &str) -> String {
    if path.ends_with("options.txt") {
        "F1: a flight\n".into()
    } else if path.contains("env_persona") {
        "Name: Test\nToolkits:\n1) Emails:\nFrom: a\nTo: b\nBody: hi\n".into()
    } else if path.contains("privacy_attacks") {
        r#"{"categories": {"related_but_private": {"items": [{"data_item": "Name", "extraction_snippets": ["Test"]}]}}}"#.into()
    } else if path.contains("security_attacks") {
        r#"{"security_attacks": {"upsell": {"spa": {"attack_action": "x", "responsibility_flag": "EXTERNAL_AGENT_OPTIONS"}}}}"#.into()
    } else {
        r#"{"F1": 5}"#.into()
    }
}

fn good() -> Rule {
    Arc::new(|p: &str| Reply::Ok(content(p)))
}

fn opts(server: &Server) -> FetchOptions {
    FetchOptions { base_url: server.base.clone(), timeout: Duration::from_secs(5), force: false }
}

/// Every file under `root`, relative, sorted (temp files included).
fn tree(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

#[tokio::test]
async fn all_17_files_land_in_the_cache_layout() {
    let server = serve(good());
    let dir = tempfile::tempdir().unwrap();
    let report =
        fetch_domain(dir.path(), Domain::TravelPlanning, &opts(&server), &mut NoProgress).await.unwrap();
    assert_eq!((report.downloaded, report.skipped), (17, 0));

    // Upstream paths, in MASEval's order.
    let requested = server.requests.lock().unwrap().clone();
    assert_eq!(requested.len(), 17);
    assert_eq!(requested[0], "travel_planning_usecase/options.txt");
    assert_eq!(requested[1], "travel_planning_usecase/env_persona1.txt");
    assert_eq!(requested[2], "travel_planning_usecase/privacy_attacks/privacy_attacks_persona1.json");
    assert_eq!(requested[3], "travel_planning_usecase/security_attacks/security_attacks_persona1.json");
    assert_eq!(requested[4], "travel_planning_usecase/ratings/ratings_persona1.json");

    let files = tree(dir.path());
    assert_eq!(files.len(), 17, "{files:?}");
    for n in 1..=4 {
        for f in [
            format!("travel_planning/env_persona{n}.txt"),
            format!("travel_planning/privacy/attacks_p{n}.json"),
            format!("travel_planning/security/attacks_p{n}.json"),
            format!("travel_planning/ratings/ratings_p{n}.json"),
        ] {
            assert!(files.contains(&f), "{f} not in {files:?}");
        }
    }
    let opt = std::fs::read_to_string(dir.path().join("travel_planning/options.txt")).unwrap();
    assert_eq!(opt, "F1: a flight\n");

    let checks = verify(dir.path(), &[Domain::TravelPlanning]);
    assert!(checks[0].ok(), "{checks:?}");
    assert_eq!((checks[0].privacy_tasks, checks[0].security_tasks), (4, 4));
    let loaded = load_tasks(&DatasetSource::Dir(dir.path().to_path_buf()), &TaskFilter::default()).unwrap();
    assert_eq!(loaded.tasks.len(), 8);
    assert_eq!(loaded.tasks[0].id, "travel_planning_p1_privacy_related_but_private_name");
}

#[tokio::test]
async fn http_404_names_url_and_status_and_leaves_no_file() {
    let server = serve(Arc::new(|p: &str| {
        if p.ends_with("security_attacks_persona2.json") { Reply::Status(404) } else { Reply::Ok(content(p)) }
    }));
    let dir = tempfile::tempdir().unwrap();
    let err = fetch_domain(dir.path(), Domain::Insurance, &opts(&server), &mut NoProgress).await.unwrap_err();
    assert!(matches!(err, DownloadError::Status { status: 404, .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!(
            "{}/insurance_usecase/security_attacks/security_attacks_persona2.json",
            server.base
        )),
        "{msg}"
    );
    assert!(msg.contains("404") && msg.contains("bundled sample"), "{msg}");
    let files = tree(dir.path());
    // The first failure stops the domain: 7 files before it, none after, no temp.
    assert_eq!(files.len(), 7, "{files:?}");
    assert!(!files.iter().any(|f| f.contains("security/attacks_p2") || f.ends_with(".tmp")));
}

#[tokio::test]
async fn a_silent_server_times_out_and_leaves_no_file() {
    // The server hangs far longer than the bound below, so only the client's timeout can pass.
    let server = serve(Arc::new(|_: &str| Reply::Hang(Duration::from_secs(120))));
    let dir = tempfile::tempdir().unwrap();
    let o = FetchOptions { timeout: Duration::from_millis(300), ..opts(&server) };
    let started = std::time::Instant::now();
    let err = fetch_domain(dir.path(), Domain::RealEstate, &o, &mut NoProgress).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    let msg = err.to_string();
    assert!(matches!(err, DownloadError::Network { .. }), "{msg}");
    assert!(msg.contains("timed out") && msg.contains("real_estate_usecase/options.txt"), "{msg}");
    assert!(tree(dir.path()).is_empty(), "{:?}", tree(dir.path()));
}

#[tokio::test]
async fn a_connection_dropped_mid_body_leaves_no_partial_or_temp_file() {
    let server = serve(Arc::new(|p: &str| {
        if p.ends_with("env_persona1.txt") {
            Reply::Truncated { declared: 1000, sent: "Name: Half".into() }
        } else {
            Reply::Ok(content(p))
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let err =
        fetch_domain(dir.path(), Domain::TravelPlanning, &opts(&server), &mut NoProgress).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DownloadError::Network { .. }), "{msg}");
    assert!(msg.contains("env_persona1.txt"), "{msg}");
    assert_eq!(tree(dir.path()), ["travel_planning/options.txt"]);
}

#[tokio::test]
async fn existing_files_are_skipped_unless_forced() {
    let server = serve(good());
    let dir = tempfile::tempdir().unwrap();
    let specs = domain_files(&server.base, dir.path(), Domain::Insurance);
    for s in &specs {
        std::fs::create_dir_all(s.dest.parent().unwrap()).unwrap();
        std::fs::write(&s.dest, "old").unwrap();
    }
    let report = fetch_domain(dir.path(), Domain::Insurance, &opts(&server), &mut NoProgress).await.unwrap();
    assert_eq!((report.downloaded, report.skipped), (0, 17));
    assert!(server.requests.lock().unwrap().is_empty());
    assert_eq!(std::fs::read_to_string(&specs[0].dest).unwrap(), "old");

    let forced = FetchOptions { force: true, ..opts(&server) };
    let report = fetch_domain(dir.path(), Domain::Insurance, &forced, &mut NoProgress).await.unwrap();
    assert_eq!((report.downloaded, report.skipped), (17, 0));
    assert_eq!(std::fs::read_to_string(&specs[0].dest).unwrap(), "F1: a flight\n");
    assert_eq!(tree(dir.path()).len(), 17);
}

#[tokio::test]
async fn force_keeps_the_old_file_when_the_new_download_fails() {
    let server = serve(Arc::new(|_: &str| Reply::Status(500)));
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("insurance/options.txt");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::write(&dest, "old").unwrap();
    let forced = FetchOptions { force: true, ..opts(&server) };
    let err = fetch_domain(dir.path(), Domain::Insurance, &forced, &mut NoProgress).await.unwrap_err();
    assert!(err.to_string().contains("HTTP 500"));
    assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old");
}

#[tokio::test]
async fn headless_fetch_path_and_verify() {
    let server = serve(good());
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths {
        config_dir: dir.path().join("config"),
        dataset_dir: dir.path().join("cache"),
        episodes_dir: dir.path().join("episodes"),
        log_dir: dir.path().join("log"),
        cache_dir: dir.path().join("index-cache"),
    };
    let mut out = Vec::new();
    let missing = DataFetchArgs { base_url: Some(server.base.clone()), ..DataFetchArgs::default() };
    let msg = data_fetch(&missing, &paths, &mut out).await.unwrap_err().to_string();
    assert!(msg.contains("--domain") && msg.contains("--all"), "{msg}");

    let args = DataFetchArgs {
        domain: Some("travel".into()),
        base_url: Some(server.base.clone()),
        progress: ProgressMode::Lines,
        ..DataFetchArgs::default()
    };
    let report = data_fetch(&args, &paths, &mut out).await.unwrap();
    assert_eq!(report.downloaded, 17);
    let text = String::from_utf8(std::mem::take(&mut out)).unwrap();
    assert!(text.contains("travel_planning: 17 files"), "{text}");
    assert!(text.contains("fetched ") && text.contains("17 files downloaded"), "{text}");

    data_path(&DataPathArgs::default(), &paths, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(std::mem::take(&mut out)).unwrap().trim(),
        paths.dataset_dir.display().to_string()
    );

    let ok = data_verify(
        &DataVerifyArgs { domain: Some("travel_planning".into()), ..DataVerifyArgs::default() },
        &paths,
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(std::mem::take(&mut out)).unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("travel_planning: ok, 4 privacy and 4 security tasks"), "{text}");

    // Other domains are missing: verify says so and fails.
    let ok = data_verify(&DataVerifyArgs::default(), &paths, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!ok);
    assert!(text.contains("insurance: INCOMPLETE") && text.contains("missing:"), "{text}");
}
