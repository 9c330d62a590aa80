//! `batch --emit slurm` on a real Slurm: a single-node cluster on localhost
//! (its own munge key and socket, a minimal slurm.conf, free ports, all in a
//! temporary directory), the emitted 3-shard array script submitted with
//! sbatch against the test model server on 127.0.0.1. Every task must be run
//! exactly once and `summary` of the merged directory must equal a one-process run.
//!
//! Needs Debian's slurmctld, slurmd, slurm-client and munge (`.ci/run` installs
//! them) and root (the daemons run as root). Under `CI=true` a cluster that
//! cannot start fails the test; elsewhere the test says why it did not run.

use crate::support::batch_cli;
use crate::support::openai_server;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use batch_cli::{batch_args, command, converse_tui, generic, isolated, records, summary_total};
use openai_server::OpenAiServer;

const PROGRAMS: [&str; 6] = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo"];

/// A single-node Slurm cluster on localhost; its daemons stop when it is dropped.
struct Cluster {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

impl Cluster {
    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm client command (sbatch, sinfo, scancel) talking to this cluster.
    fn client(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("SLURM_CONF", self.conf());
        cmd
    }

    fn start() -> Result<Cluster, String> {
        for program in PROGRAMS {
            which(program).ok_or_else(|| {
                format!("{program} is not installed (apt-get install slurmctld slurmd slurm-client munge)")
            })?;
        }
        if !is_root() {
            return Err("the Slurm and munge daemons of this test run as root; this test is not root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut cluster = Cluster { dir, daemons: Vec::new() };
        let root = cluster.dir.path().to_path_buf();
        for sub in ["state", "spool", "log"] {
            std::fs::create_dir(root.join(sub)).map_err(|e| e.to_string())?;
        }
        let key = root.join("munge.key");
        let created =
            Command::new("mungekey").arg("--create").arg(format!("--keyfile={}", key.display())).output();
        if !created.as_ref().is_ok_and(|o| o.status.success()) {
            return Err(format!("mungekey cannot create a key: {created:?}"));
        }
        let socket = root.join("munge.socket");
        cluster.spawn(
            Command::new("munged").arg("--foreground").arg("--force").args([
                format!("--socket={}", socket.display()),
                format!("--key-file={}", key.display()),
                format!("--pid-file={}", root.join("munged.pid").display()),
                format!("--seed-file={}", root.join("munged.seed").display()),
                format!("--log-file={}", root.join("log/munged.log").display()),
            ]),
            "munged",
        )?;
        wait_until(Duration::from_secs(10), || socket.exists())
            .map_err(|_| "munged did not create its socket".to_string())?;
        std::fs::write(cluster.conf(), slurm_conf(&root, &socket)?).map_err(|e| e.to_string())?;
        cluster.spawn(
            Command::new("slurmctld").args(["-D", "-i"]).env("SLURM_CONF", cluster.conf()),
            "slurmctld",
        )?;
        cluster.spawn(
            Command::new("slurmd").args(["-D", "-N", "converse-node"]).env("SLURM_CONF", cluster.conf()),
            "slurmd",
        )?;
        let idle = wait_until(Duration::from_secs(40), || {
            let out = cluster.client("sinfo").args(["-h", "-o", "%t"]).output();
            out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
        if idle.is_err() {
            return Err(format!("the node did not become idle in 40 s; logs:\n{}", cluster.logs()));
        }
        Ok(cluster)
    }

    fn spawn(&mut self, cmd: &mut Command, name: &str) -> Result<(), String> {
        let log = std::fs::File::create(self.dir.path().join(format!("log/{name}.out")))
            .map_err(|e| e.to_string())?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        let child =
            cmd.stdin(Stdio::null()).stdout(log).stderr(err).spawn().map_err(|e| format!("{name}: {e}"))?;
        self.daemons.push(child);
        Ok(())
    }

    fn logs(&self) -> String {
        let mut text = String::new();
        for name in ["munged.out", "slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"] {
            let body = std::fs::read_to_string(self.dir.path().join("log").join(name)).unwrap_or_default();
            let tail: Vec<&str> = body.lines().rev().take(15).collect();
            text.push_str(&format!("--- {name}\n"));
            for line in tail.into_iter().rev() {
                text.push_str(line);
                text.push('\n');
            }
        }
        text
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs first (their slurmstepd outlives slurmd), then the daemons, the controller last.
        let _ = self.client("scancel").args(["--user", "root"]).status();
        for child in self.daemons.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn slurm_conf(root: &Path, socket: &Path) -> Result<String, String> {
    let host = Command::new("hostname").arg("-s").output().map_err(|e| format!("hostname: {e}"))?;
    let host = String::from_utf8_lossy(&host.stdout).trim().to_string();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let r = root.display();
    Ok(format!(
        "ClusterName=convtest\n\
         SlurmctldHost={host}(127.0.0.1)\n\
         SlurmUser=root\nSlurmdUser=root\n\
         SlurmctldPort={ctld}\nSlurmdPort={slurmd}\n\
         AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={socket}\n\
         StateSaveLocation={r}/state\nSlurmdSpoolDir={r}/spool\n\
         SlurmctldPidFile={r}/slurmctld.pid\nSlurmdPidFile={r}/slurmd.pid\n\
         SlurmctldLogFile={r}/log/slurmctld.log\nSlurmdLogFile={r}/log/slurmd.log\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
         JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
         SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nMpiDefault=none\nReturnToService=2\n\
         NodeName=converse-node NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1024 State=UNKNOWN\n\
         PartitionName=debug Nodes=converse-node Default=YES MaxTime=INFINITE State=UP\n",
        ctld = free_port()?,
        slurmd = free_port()?,
        socket = socket.display(),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_emitted_array_script_runs_every_task_once_on_a_real_slurm() {
    let cluster = match Cluster::start() {
        Ok(cluster) => cluster,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI: the Slurm cluster cannot start: {why}")
        }
        Err(why) => {
            eprintln!("not run: the Slurm cluster cannot start: {why}");
            return;
        }
    };
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let home = tempfile::tempdir().unwrap();
    let sharded = home.path().join("sharded");
    let whole = home.path().join("whole");
    let flags = ["--limit", "7", "--max-turns", "2", "--concurrency", "2"];

    let mut emit = batch_args(&server.base_url(), &sharded, &flags);
    emit.extend(["--shards", "3", "--emit", "slurm"].map(String::from));
    let mut cmd = command(home.path(), &emit);
    cmd.current_dir(home.path());
    let emitted = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(emitted.status.success(), "{}", String::from_utf8_lossy(&emitted.stderr));
    let script = home.path().join("job.sh");
    std::fs::write(&script, &emitted.stdout).unwrap();

    // `--wait`: sbatch returns when every array task has ended, with the highest exit code.
    let mut sbatch = cluster.client("sbatch");
    isolated(&mut sbatch, home.path()).args(["--parsable", "--wait"]).arg(&script).current_dir(home.path());
    let started = Instant::now();
    let submitted = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::task::spawn_blocking(move || sbatch.output().unwrap()),
    )
    .await;
    let logs = || -> String {
        let mut text = cluster.logs();
        for entry in std::fs::read_dir(home.path()).unwrap().flatten() {
            if entry.file_name().to_string_lossy().starts_with("converse-batch-") {
                text.push_str(&format!(
                    "--- {}\n{}",
                    entry.path().display(),
                    std::fs::read_to_string(entry.path()).unwrap_or_default()
                ));
            }
        }
        text
    };
    let Ok(submitted) = submitted else { panic!("the array did not finish in 120 s\n{}", logs()) };
    let submitted = submitted.unwrap();
    assert!(submitted.status.success(), "sbatch: {}\n{}", String::from_utf8_lossy(&submitted.stderr), logs());
    eprintln!("the 3-task array ran in {:.1} s", started.elapsed().as_secs_f64());

    let one = converse_tui(home.path(), batch_args(&server.base_url(), &whole, &flags)).await;
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let mut tasks: Vec<String> = Vec::new();
    for k in 1..=3 {
        let shard = records(&sharded.join(format!("runs-{k}-of-3.jsonl")));
        tasks.extend(shard.iter().map(|r| format!("{}#{}", r["task"].as_str().unwrap(), r["repeat"])));
    }
    tasks.sort();
    let mut expected: Vec<String> = records(&whole.join("runs.jsonl"))
        .iter()
        .map(|r| format!("{}#{}", r["task"].as_str().unwrap(), r["repeat"]))
        .collect();
    expected.sort();
    assert_eq!(expected.len(), 7);
    assert_eq!(tasks, expected, "every task exactly once across the array's shards\n{}", logs());
    assert_eq!(summary_total(home.path(), &sharded).await, summary_total(home.path(), &whole).await);
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn wait_until(timeout: Duration, mut ready: impl FnMut() -> bool) -> Result<(), ()> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if ready() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(())
}
