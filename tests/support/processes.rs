//! Processes a test started through the binary: waiting for one with a limit (a hang fails the
//! test instead of holding it) and finding what is left of a process group.

#![allow(dead_code)]

use std::io::Read as _;
use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// Waits for `child` at most `limit`; kills it and panics naming `what` if it is still running.
pub fn wait_within(mut child: Child, limit: Duration, what: &str) -> (Output, Duration) {
    let start = Instant::now();
    // Drained on threads: a full pipe must not be what holds the child.
    let pipe = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = pipe(child.stdout.take().map(|s| Box::new(s) as _));
    let stderr = pipe(child.stderr.take().map(|s| Box::new(s) as _));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = start.elapsed();
    let output = Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() };
    (output, took)
}

/// The pids of the processes whose process group is `group` (from /proc), zombies excepted.
pub fn group_members(group: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid pgrp …: comm may hold spaces, so read after its last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2].parse() == Ok(group) {
            members.push(pid);
        }
    }
    members
}

/// Waits up to `limit` for group `group` to be empty; returns what is left.
pub fn group_left_after(group: i32, limit: Duration) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let left = group_members(group);
        if left.is_empty() || start.elapsed() > limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` is still running (a zombie is not) after waiting up to `limit`.
pub fn alive_after(pid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok().and_then(|stat| {
            stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_string))
        });
        let alive = state.is_some_and(|s| s != "Z");
        if !alive || start.elapsed() > limit {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The pids of the processes whose environment holds `entry` (`NAME=value`, from /proc), zombies
/// excepted: what is left of an agent whose processes all carry a mark in their environment.
pub fn with_env(entry: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for proc in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = proc.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(environ) = std::fs::read(proc.path().join("environ")) else { continue };
        if environ.split(|b| *b == 0).any(|e| e == entry.as_bytes()) && alive_after(pid, Duration::ZERO) {
            found.push(pid);
        }
    }
    found
}
