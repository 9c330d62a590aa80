//! Stop signals: SIGINT (from outside; in the TUI's raw mode Ctrl-C is a key),
//! SIGTERM and SIGHUP, so a run ends cleanly with its journal complete.

use tokio::sync::mpsc;

/// A receiver that gets `()` each time a stop signal arrives.
pub fn stop_signals() -> std::io::Result<mpsc::Receiver<()>> {
    let (tx, rx) = mpsc::channel(1);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        for kind in [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup()] {
            let mut sig = signal(kind)?;
            let tx = tx.clone();
            tokio::spawn(async move {
                while sig.recv().await.is_some() {
                    let _ = tx.send(()).await;
                }
            });
        }
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                let _ = tx.send(()).await;
            }
        });
    }
    Ok(rx)
}
