"""A real single-node SLURM cluster for the tests: munged, slurmctld and slurmd started by hand
(no systemd) in the foreground as children of the test process, every file (config, state, logs,
munge socket) in one temporary folder, stopped by PID.

Needs root and the Debian packages slurmctld, slurmd, munge, slurm-client (``install()`` runs
``apt-get install`` when a command is missing). No accounting daemon: ``sacct`` fails, so the
Snakemake executor must query job states with ``squeue`` (MinJobAge keeps finished jobs visible).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

CLUSTER_NAME = "leakagetest"
PACKAGES = ["slurmctld", "slurmd", "munge", "slurm-client"]
COMMANDS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"]


def missing_commands() -> list[str]:
    return [c for c in COMMANDS if shutil.which(c) is None]


# The default configuration path of Debian's SLURM. The job-step executor of Snakemake strips every
# SLURM_* variable, SLURM_CONF included, from the environment of the `srun` it runs inside a job,
# so that srun finds the configuration only here: the cluster links its slurm.conf here while it
# runs (and never replaces an existing file).
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")


def cannot_run_reason() -> str | None:
    """Why a SLURM cluster cannot be started here (None if it can)."""
    if os.name != "posix" or os.geteuid() != 0:
        return "needs root (starts munged, slurmctld and slurmd)"
    if _stale_test_link():
        SYSTEM_CONF.unlink()  # left by a test run that was killed before its teardown
    if SYSTEM_CONF.exists() or SYSTEM_CONF.is_symlink():
        return f"{SYSTEM_CONF} exists (a real SLURM installation?): not starting a test cluster over it"
    if missing_commands() and shutil.which("apt-get") is None:
        return f"SLURM commands {missing_commands()} missing and no apt-get to install them"
    return None


def _stale_test_link() -> bool:
    """SYSTEM_CONF is a link to a test cluster's configuration that is gone or not in use."""
    if not SYSTEM_CONF.is_symlink():
        return False
    target = SYSTEM_CONF.resolve()
    if not target.exists():
        return True
    text = target.read_text(errors="replace")
    pid_file = target.parent / "slurmctld.pid"
    alive = pid_file.exists() and Path(f"/proc/{pid_file.read_text().strip()}").exists()
    return f"ClusterName={CLUSTER_NAME}" in text and not alive


def install(timeout: float = 300) -> float:
    """apt-get install the SLURM packages if a command is missing; returns the seconds it took."""
    if not missing_commands():
        return 0.0
    start = time.monotonic()
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:  # stale package lists: update once, then retry
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=timeout)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or missing_commands():
        raise RuntimeError(f"apt-get install {' '.join(PACKAGES)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return time.monotonic() - start


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    root: Path
    conf: Path
    hostname: str
    env: dict[str, str]
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)
    linked_conf: bool = False

    def run(self, *cmd: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, env=self.env, capture_output=True, text=True, check=check, timeout=timeout)

    def squeue(self) -> str:
        """All jobs the controller knows (pending, running, and finished within MinJobAge)."""
        return self.run("squeue", "--states=all", "--noheader", "--format=%i|%j|%T|%k").stdout

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.root.glob("*.log"))
        )

    def stop(self) -> None:
        """Stop the daemons this cluster started, by PID, slurmd first; SIGKILL after 10 s."""
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self.linked_conf and SYSTEM_CONF.is_symlink() and SYSTEM_CONF.resolve() == self.conf.resolve():
            SYSTEM_CONF.unlink()
            self.linked_conf = False


def start(root: Path, timeout: float = 60, cpus: int | None = None) -> Cluster:
    """Write slurm.conf under ``root`` and start munged, slurmctld, slurmd; wait until the node is
    idle. On failure, stops what it started and raises RuntimeError with the daemons' logs.

    ``cpus``: the CPUs the node offers SLURM, if more than the machine's (``slurmd -C``): the
    node is declared with that many (one core per socket) and slurmd takes the configuration as it
    is (``SlurmdParameters=config_overrides``) instead of draining a node that has fewer. A test
    whose jobs mostly wait (Python starting) can so run more of them at once than there are cores."""
    root = Path(root)
    for sub in ("state", "spool", "munge"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(root / "munge", 0o700)
    hostname = socket.gethostname().split(".")[0]
    node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    if not node.startswith(f"NodeName={hostname} "):
        raise RuntimeError(f"unexpected `slurmd -C` output: {node!r}")
    fields = dict(f.split("=", 1) for f in node.split())
    overrides = []
    if cpus is not None and cpus > int(fields["CPUs"]):
        node = f"NodeName={hostname} CPUs={cpus} RealMemory={fields['RealMemory']}"
        overrides = ["SlurmdParameters=config_overrides"]
    munge_socket = root / "munge" / "munge.socket"
    conf = root / "slurm.conf"
    conf.write_text(
        "\n".join(
            [
                f"ClusterName={CLUSTER_NAME}",
                f"SlurmctldHost={hostname}(127.0.0.1)",
                f"SlurmctldPort={_free_port()}",
                f"SlurmdPort={_free_port()}",
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "CredType=cred/munge",
                f"AuthInfo=socket={munge_socket}",
                f"StateSaveLocation={root / 'state'}",
                f"SlurmdSpoolDir={root / 'spool'}",
                f"SlurmctldPidFile={root / 'slurmctld.pid'}",
                f"SlurmdPidFile={root / 'slurmd.pid'}",
                f"SlurmctldLogFile={root / 'slurmctld.log'}",
                f"SlurmdLogFile={root / 'slurmd.log'}",
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "SchedulerType=sched/backfill",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "MpiDefault=none",
                "ReturnToService=2",
                "MinJobAge=300",
                "SlurmdTimeout=60",
                "InactiveLimit=0",
                *overrides,
                f"{node} NodeAddr=127.0.0.1 State=UNKNOWN",
                f"PartitionName=debug Nodes={hostname} Default=YES MaxTime=INFINITE State=UP",
                "",
            ]
        )
    )
    env = dict(os.environ, SLURM_CONF=str(conf))
    cluster = Cluster(root=root, conf=conf, hostname=hostname, env=env)
    SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
    SYSTEM_CONF.symlink_to(conf)  # FileExistsError rather than replacing a configuration
    cluster.linked_conf = True
    daemons = [
        (
            "munged",
            [
                "munged", "--foreground", "--force", f"--socket={munge_socket}",
                f"--pid-file={root / 'munge' / 'munged.pid'}", f"--log-file={root / 'munged.log'}",
                f"--seed-file={root / 'munge' / 'munged.seed'}",
            ],
            lambda: munge_socket.exists(),
        ),
        ("slurmctld", ["slurmctld", "-D", "-c", "-i", "-f", str(conf)], lambda: _ping(cluster)),
        ("slurmd", ["slurmd", "-D", "-f", str(conf)], lambda: _node_idle(cluster)),
    ]
    try:
        for name, cmd, ready in daemons:
            out = open(root / f"{name}.out", "w")
            cluster.procs[name] = subprocess.Popen(
                cmd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
            deadline = time.monotonic() + timeout
            while not ready():
                if cluster.procs[name].poll() is not None:
                    raise RuntimeError(f"{name} exited with {cluster.procs[name].returncode}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} not ready after {timeout} s")
                time.sleep(0.3)
    except Exception as exc:
        cluster.stop()
        outs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in root.glob("*.out"))
        raise RuntimeError(f"could not start SLURM: {exc}\n{cluster.logs()}\n{outs}") from exc
    return cluster


def _ping(cluster: Cluster) -> bool:
    proc = cluster.run("scontrol", "ping", check=False)
    return proc.returncode == 0 and "UP" in proc.stdout


def _node_idle(cluster: Cluster) -> bool:
    proc = cluster.run("sinfo", "--noheader", "--format=%T", check=False)
    return proc.returncode == 0 and proc.stdout.strip().rstrip("*") == "idle"
