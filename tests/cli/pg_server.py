"""A throwaway PostgreSQL server for the history's tests: a cluster made by initdb in a
temporary directory, listening on a Unix socket in that directory alone (no TCP), trusting
every local user, and removed with its directory when stopped. PostgreSQL refuses to run as
root: as root, the server runs as the unprivileged user `nobody` (runuser), which then owns
the directory.

As a module: `with PgServer() as pg: ... pg.createdb("a") ...` (the server stops on leaving the
block, and at exit whatever happens). As a program, for the C tests (tests/CMakeLists.txt):
`python3 pg_server.py run -- COMMAND ARGS...` runs COMMAND with KB_TEST_PG_HOST set to the
server's socket directory, where the empty databases t1 ... t10 wait, and exits with its
status."""

import atexit
import glob
import os
import shutil
import subprocess
import sys
import tempfile

USER = "kbench"  # the cluster's superuser


def _bindir():
    """Where initdb and pg_ctl are: pg_config's word, else the newest Debian server."""
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True)
        d = out.stdout.strip()
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    except (OSError, subprocess.CalledProcessError):
        pass
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if not found:
        raise RuntimeError("no PostgreSQL server found (scripts/install-deps installs postgresql)")
    return os.path.dirname(found[-1])


class PgServer:
    def __init__(self, fsync=False):
        self.fsync = fsync
        self.dir = None

    def _run(self, *args):
        """Runs a server program, as nobody when this process is root."""
        prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        env = dict(os.environ, LC_ALL="C", LANG="C")
        subprocess.run(prefix + list(args), check=True, env=env, cwd=self.dir,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self):
        self.bindir = _bindir()
        # Short, under /tmp: a socket's path is limited to about 100 bytes.
        self.dir = tempfile.mkdtemp(prefix="kbpg-", dir="/tmp")
        atexit.register(self.stop)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "nobody")
        data = os.path.join(self.dir, "data")
        try:
            self._run(os.path.join(self.bindir, "initdb"), "-D", data, "-U", USER, "-A", "trust",
                      "--no-sync", "-E", "UTF8")
            options = f"-c listen_addresses='' -k {self.dir} -c max_connections=40"
            if not self.fsync:
                options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            self._run(os.path.join(self.bindir, "pg_ctl"), "-D", data, "-o", options, "-l",
                      os.path.join(self.dir, "log"), "-w", "-t", "60", "start")
        except subprocess.CalledProcessError as e:
            log = os.path.join(self.dir, "log")
            detail = open(log).read()[-2000:] if os.path.exists(log) else ""
            self.stop()
            raise RuntimeError(f"PostgreSQL did not start: {e.stderr!r} {detail}") from e
        self.url = self.url_of("postgres")
        return self

    def createdb(self, *names):
        """Empty databases of these names; returns their URLs."""
        args = [os.path.join(self.bindir, "psql"), "-q", "-X", "-h", self.dir, "-U", USER, "-d",
                "postgres"]
        for name in names:
            args += ["-c", f'CREATE DATABASE "{name}"']
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        return [self.url_of(name) for name in names]

    def url_of(self, database):
        return f"postgresql://{USER}@/{database}?host={self.dir}"

    def stop(self):
        """Stops the server (immediately: nothing in it is worth keeping) and removes it;
        safe to call twice."""
        if not self.dir:
            return
        data = os.path.join(self.dir, "data")
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            try:
                self._run(os.path.join(self.bindir, "pg_ctl"), "-D", data, "-m", "immediate",
                          "-w", "stop")
            except subprocess.CalledProcessError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main():
    if len(sys.argv) < 4 or sys.argv[1:3] != ["run", "--"]:
        sys.exit("usage: pg_server.py run -- COMMAND [ARGS...]")
    with PgServer() as pg:
        pg.createdb(*(f"t{i}" for i in range(1, 11)))
        status = subprocess.run(sys.argv[3:], env=dict(os.environ, KB_TEST_PG_HOST=pg.dir))
    sys.exit(status.returncode)


if __name__ == "__main__":
    main()
