"""The pipeline on a real SLURM scheduler, through profiles/slurm (not a mock).

Starts a single-node cluster (tests/slurmcluster.py: munged, slurmctld, slurmd as children of this
process, installed with apt-get when missing), runs a small copy of the pipeline (fake papers, Adult
sample; tests/miniproject.py) with the project's SLURM profile adjusted as docs/cluster.md tells a site to, and checks the outputs and that every non-local job really ran as a
SLURM job. Skipped where it cannot run (not root, no SLURM and no apt-get)."""

import re
import time

import pytest
import yaml

import slurmcluster
from miniproject import FAKE_FIGURES, make_project, run_snakemake

pytestmark = pytest.mark.slurm

#: SLURM jobs the test node runs at once (its CPUs; every job asks for one)
JOBS_AT_ONCE = 3
#: seconds from a wave's submission to the executor's first look at the queue (_site_profile)
POLL_SECONDS = 3

# rules that run on the submitting node (localrules), not as SLURM jobs
LOCAL_RULES = {"all", "claims_html", "adult_provenance_html"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = slurmcluster.cannot_run_reason()
    if reason:
        pytest.skip(reason)
    apt_seconds = slurmcluster.install()
    start = time.monotonic()
    # at least 3 CPUs, whatever the machine has: the pipeline's 6 jobs then run in two waves of 3
    # (data and the two tables; the two drawings and the claims), each job mostly Python starting;
    # on 2 CPUs they took three waves, and each wave costs at least one of the executor's waits
    # (_site_profile)
    c = slurmcluster.start(tmp_path_factory.mktemp("slurm"), cpus=JOBS_AT_ONCE)
    print(f"\nSLURM: apt-get install {apt_seconds:.1f} s, daemons up in {time.monotonic() - start:.1f} s")
    yield c
    c.stop()
    assert all(p.poll() is not None for p in c.procs.values()), "a SLURM daemon survived stop()"


def _site_profile(project, partition):
    """profiles/slurm adjusted for the test cluster: its partition, no account, squeue for status
    (no slurmdbd), polling after POLL_SECONDS."""
    profile = yaml.safe_load((project / "profiles" / "slurm" / "config.yaml").read_text())
    assert profile["executor"] == "slurm"
    profile["default-resources"]["slurm_partition"] = partition
    profile.update(
        {
            "slurm-no-account": True,
            "slurm-status-command": "squeue",
            # The executor looks at the queue this long after submitting a wave (and after a look
            # that found a job finished); after a look that found nothing finished it waits 10 s
            # longer each time: with 3 s it looks at 3 s, 16 s, 39 s. A wave of the test's jobs
            # takes 7-13 s (Python starts, on a loaded machine): with 1 s it was seen at 12 s, or
            # at 33 s when it took a second longer.
            "slurm-init-seconds-before-status-checks": POLL_SECONDS,
            "seconds-between-status-checks": POLL_SECONDS,
            "slurm-keep-successful-logs": True,
            "latency-wait": 5,
            "jobs": 4,
        }
    )
    folder = project / "profiles" / "slurm-test"
    folder.mkdir()
    (folder / "config.yaml").write_text(yaml.safe_dump(profile))
    return folder


def test_pipeline_runs_through_slurm(cluster, tmp_path):
    # one fake paper (2 figures): 6 SLURM jobs in two waves of JOBS_AT_ONCE
    project = make_project(tmp_path / "project", papers=["mi-dp"])
    partition = cluster.run("sinfo", "--noheader", "--format=%R").stdout.split()[0]
    profile = _site_profile(project, partition)
    start = time.monotonic()
    proc = run_snakemake(
        project, "--workflow-profile", str(profile), env=cluster.env, timeout=170, check=False
    )
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-6000:] + cluster.logs()
    print(f"pipeline through SLURM: {elapsed:.1f} s")

    # the outputs
    for paper, figures in [("mi-dp", FAKE_FIGURES["mi-dp"])]:
        for fig in figures:
            for ext in ("csv", "pdf", "png"):
                assert (project / "results" / paper / f"{fig}.{ext}").stat().st_size > 0
        assert (project / "results" / paper / "claims.html").stat().st_size > 0
    assert (project / "results" / "data" / "adult_provenance.html").stat().st_size > 0

    # every non-local job was submitted to SLURM, and SLURM ran it to completion
    submitted = _submitted(proc.stdout)
    expected = {"experiment": 2, "figure": 2, "claims": 1, "data": 1}
    counts = {}
    for rule in submitted.values():
        counts[rule] = counts.get(rule, 0) + 1
    assert counts == expected, proc.stdout[-6000:]
    queue = {}
    for line in cluster.squeue().splitlines():
        jobid, name, state, comment = line.split("|", 3)
        queue[int(jobid)] = (state, comment)
    for jobid, rule in submitted.items():
        assert jobid in queue, f"SLURM job {jobid} ({rule}) unknown to squeue:\n{cluster.squeue()}"
        state, comment = queue[jobid]
        assert state == "COMPLETED", (jobid, rule, state)
        assert comment.startswith(f"rule_{rule}"), (jobid, rule, comment)
    # the jobs' own SLURM logs (kept): one per job, written by the job step on the node
    logs = sorted((project / "logs" / "slurm").rglob("*.log"))
    assert len(logs) == len(submitted), logs
    assert not (set(LOCAL_RULES) & set(submitted.values()))
    assert not (project / "results" / "statistical-inference").exists()


def _submitted(out):
    """SLURM job id -> rule, from Snakemake's log: the rule of the job block preceding each
    'Job <n> has been submitted with SLURM jobid <id>' line."""
    rules_of_job = dict(
        (jobid, rule)
        for rule, jobid in re.findall(r"^(?:local)?rule (\w+):\n(?:[ \t].*\n)*?\s+jobid: (\d+)", out, re.M)
    )
    return {
        int(slurm_id): rules_of_job[jobid]
        for jobid, slurm_id in re.findall(r"Job (\d+) has been submitted with SLURM jobid (\d+)", out)
    }


def test_skips_with_a_reason_when_not_root(monkeypatch):
    monkeypatch.setattr(slurmcluster.os, "geteuid", lambda: 1000)
    assert "root" in slurmcluster.cannot_run_reason()


def test_skips_with_a_reason_without_slurm_and_apt(monkeypatch):
    monkeypatch.setattr(slurmcluster.os, "geteuid", lambda: 0)
    monkeypatch.setattr(slurmcluster.shutil, "which", lambda name: None)
    monkeypatch.setattr(slurmcluster, "SYSTEM_CONF", slurmcluster.Path("/nonexistent/slurm.conf"))
    reason = slurmcluster.cannot_run_reason()
    assert "apt-get" in reason and "sbatch" in reason
