//! `acr batch` on a real single-node SLURM cluster: munged, slurmctld and slurmd started here with a minimal
//! slurm.conf in a temp folder, docs/batch/acr-batch.sbatch submitted as an array of three tasks (one shard each),
//! then `acr batch merge` joins the shards. Skipped, with a message, without Debian's `slurm-wlm` and `munge`
//! (tools/setup.sh installs them) or without root (slurmd launches jobs as root here).

mod common;
#[path = "batch/fixture.rs"]
mod fixture;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{ACR, ModelServer, root};
use fixture::{batch_json, fixture, ids, predictions, stderr};

/// The daemons, stopped on drop (the test passing or not).
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (_, child) in self.daemons.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn missing_tools() -> Vec<&'static str> {
    ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol"]
        .into_iter()
        .filter(|tool| {
            !["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin", "/usr/local/sbin"]
                .iter()
                .any(|dir| Path::new(dir).join(tool).exists())
        })
        .collect()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn which(tool: &str) -> PathBuf {
    ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin", "/usr/local/sbin"]
        .iter()
        .map(|dir| Path::new(dir).join(tool))
        .find(|p| p.exists())
        .unwrap()
}

impl Cluster {
    fn start() -> Cluster {
        let temp = tempfile::Builder::new().prefix("acr-slurm").tempdir_in("/tmp").unwrap();
        let dir = temp.keep();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["state", "spool"] {
            std::fs::create_dir(dir.join(sub)).unwrap();
        }
        let mut cluster = Cluster { conf: dir.join("slurm.conf"), dir, daemons: Vec::new() };
        let d = cluster.dir.clone();
        // munge: a key of random bytes, readable by its owner only.
        let mut key = vec![0u8; 1024];
        std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").unwrap(), &mut key).unwrap();
        std::fs::write(d.join("munge.key"), key).unwrap();
        std::fs::set_permissions(d.join("munge.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
        let socket = d.join("munge.sock");
        let munged = Command::new(which("munged"))
            .arg("--foreground")
            .arg("--force")
            .arg(format!("--key-file={}", d.join("munge.key").display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--pid-file={}", d.join("munged.pid").display()))
            .arg(format!("--log-file={}", d.join("munged.log").display()))
            .arg(format!("--seed-file={}", d.join("munged.seed").display()))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(d.join("munged.out")).unwrap())
            .spawn()
            .expect("munged starts");
        cluster.daemons.push(("munged", munged));
        wait_for(|| socket.exists(), "munged's socket", &d);

        // Three CPUs (config_overrides: whatever the machine has) so that the three array tasks start at once, and
        // a scheduler that looks at the queue every second rather than every few.
        let conf = format!(
            "ClusterName=acrtest\n\
             SlurmctldHost=localhost(127.0.0.1)\n\
             SlurmctldPort={ctld}\nSlurmdPort={slurmd}\n\
             SlurmUser=root\nSlurmdUser=root\n\
             AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={socket}\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
             JobCompType=jobcomp/none\nMpiDefault=none\nSwitchType=switch/none\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
             SchedulerType=sched/builtin\nReturnToService=2\nMessageTimeout=10\n\
             SchedulerParameters=sched_interval=1,batch_sched_delay=0\n\
             SlurmdParameters=config_overrides\n\
             NodeName=localhost NodeAddr=127.0.0.1 CPUs=3 State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            ctld = free_port(),
            slurmd = free_port(),
            socket = socket.display(),
            d = d.display(),
        );
        std::fs::write(&cluster.conf, conf).unwrap();
        for (name, args) in [("slurmctld", &["-D", "-i"][..]), ("slurmd", &["-D", "-N", "localhost"][..])] {
            let child = Command::new(which(name))
                .args(args)
                .env("SLURM_CONF", &cluster.conf)
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(d.join(format!("{name}.out"))).unwrap())
                .spawn()
                .unwrap_or_else(|e| panic!("{name} starts: {e}"));
            cluster.daemons.push((name, child));
        }
        wait_for(
            || {
                cluster
                    .command("sinfo")
                    .args(["-h", "-o", "%T"])
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
            },
            "the node to be idle",
            &d,
        );
        cluster
    }

    /// A SLURM client command for this cluster.
    fn command(&self, tool: &str) -> Command {
        let mut command = Command::new(which(tool));
        command.env("SLURM_CONF", &self.conf);
        command
    }
}

fn wait_for(mut ready: impl FnMut() -> bool, what: &str, logs: &Path) {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > Duration::from_secs(30) {
            let mut text = String::new();
            for log in ["munged.out", "slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"] {
                let body = std::fs::read_to_string(logs.join(log)).unwrap_or_default();
                text.push_str(&format!("--- {log}\n{body}\n"));
            }
            panic!("no {what} after 30 s:\n{text}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_slurm_job_array_runs_three_shards_and_merge_joins_them() {
    let missing = missing_tools();
    if !missing.is_empty() {
        eprintln!(
            "SKIPPED: SLURM is not installed (no {}): tools/setup.sh installs slurm-wlm and munge",
            missing.join(", ")
        );
        return;
    }
    let uid = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if uid.as_deref().ok() != Some("0") {
        eprintln!("SKIPPED: the single-node SLURM cluster of this test runs as root (CI does)");
        return;
    }
    let started = Instant::now();
    let f = fixture();
    let server = ModelServer::start(&f.script);
    let cluster = Cluster::start();
    let up = started.elapsed();

    let out = f.out("runs");
    let submit = cluster
        .command("sbatch")
        .args(["--parsable", "--array=1-3"])
        .arg(format!("--chdir={}", f.dir.path().display()))
        .arg(root().join("docs/batch/acr-batch.sbatch"))
        .env("ACR", ACR)
        .env("ACR_TASKS", &f.tasks)
        .env("ACR_REPOS", &f.repos)
        .env("ACR_OUT", &out)
        .env("ACR_ARGS", format!("--endpoint {} --model scripted --workers 2", server.url))
        .output()
        .expect("sbatch runs");
    assert!(submit.status.success(), "sbatch: {}", stderr(&submit));
    let job = String::from_utf8_lossy(&submit.stdout).trim().to_string();
    // The array has left the queue once squeue lists none of its tasks (sbatch --wait polls far less often).
    wait_for(
        || {
            cluster
                .command("squeue")
                .args(["-h", "-j", &job])
                .output()
                .is_ok_and(|o| o.status.success() && o.stdout.is_empty())
        },
        "end of the job array",
        &cluster.dir,
    );
    let show = cluster.command("scontrol").args(["show", "job", &job]).output().unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    let logs: Vec<String> = (1..=3)
        .map(|i| std::fs::read_to_string(f.dir.path().join(format!("acr-batch-{job}_{i}.log"))).unwrap_or_default())
        .collect();
    assert_eq!(show.matches("JobState=COMPLETED").count(), 3, "{show}\n{}", logs.join("\n"));
    assert!(show.contains("ExitCode=0:0"), "{show}");

    let mut seen = Vec::new();
    for i in 1..=3 {
        let shard = out.join(format!("shard-{i}"));
        assert_eq!(batch_json(&shard)["shard"], format!("{i}/3"));
        assert!(logs[i - 1].contains(&format!("(shard {i}/3 of 5)")), "{}", logs[i - 1]);
        seen.extend(ids(&predictions(&shard)));
    }
    assert_eq!(seen.len(), 5, "each task in one shard: {seen:?}");

    let merged = out.join("all");
    let merge = Command::new(ACR)
        .args(["batch", "merge"])
        .args((1..=3).map(|i| out.join(format!("shard-{i}"))))
        .arg("--into")
        .arg(&merged)
        .arg("--tasks")
        .arg(&f.tasks)
        .output()
        .unwrap();
    assert_eq!(merge.status.code(), Some(0), "{}", stderr(&merge));
    let mut all = ids(&predictions(&merged));
    all.sort();
    assert_eq!(all, f.ids);
    f.assert_repos_unchanged();
    eprintln!(
        "SLURM: cluster up in {:.1} s, array and merge done in {:.1} s",
        up.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}
