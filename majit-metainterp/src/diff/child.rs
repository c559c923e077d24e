//! Running the reference execution in a `fork()`ed child.
//!
//! The child starts with a copy of the parent's memory taken before the
//! native run, so both executions see the same heap, and whatever the
//! reference execution writes or prints stays in the child: its stdin,
//! stdout and stderr are `/dev/null`. It first waits for the bytes the
//! parent sends once the native run is over (the residual calls to
//! replay), then runs, sends its result back as bytes through a second
//! pipe and leaves with `_exit` (no destructors, no atexit
//! handlers, no flushing of buffers inherited from the parent). The parent
//! reads with a deadline and kills a child that hangs.
//!
//! In a multi-threaded process only the forking thread exists in the
//! child; a helper that needs a lock another thread held at fork time
//! hangs there, which the deadline turns into an inconclusive check. A
//! child forked by another thread meanwhile inherits this child's input
//! pipe, so the input is length-prefixed: the child never waits for the
//! end of the pipe (two such children would wait for each other).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// A running child; dropping it kills and reaps the child.
pub(crate) struct Child {
    pid: libc::pid_t,
    /// Where [`Child::send`] writes; `None` once sent.
    input: Option<File>,
    output: File,
    reaped: bool,
}

/// Forks a child that waits for the bytes [`Child::send`] sends, runs
/// `run` on them and sends back the bytes it returns.
pub(crate) fn spawn(run: impl FnOnce(Vec<u8>) -> Vec<u8>) -> Result<Child, String> {
    let (input_read, input_write) = pipe().map_err(|e| format!("pipe: {e}"))?;
    let (read, write) = pipe().map_err(|e| format!("pipe: {e}"))?;
    // SAFETY: the child only runs `run` (the reference execution), writes
    // to the pipe and calls `_exit`; it never returns into the caller.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        drop((read, input_write));
        in_child(File::from(input_read), write.as_raw_fd(), run);
    }
    drop((write, input_read));
    Ok(Child {
        pid,
        input: Some(File::from(input_write)),
        output: File::from(read),
        reaped: false,
    })
}

/// A pipe (read end, write end), close-on-exec: a process another thread
/// spawns meanwhile must not hold it open.
pub(super) fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a writable array of two ints, as `pipe2` requires.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `pipe2` just opened both descriptors and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The child's whole life: silence the standard streams, wait for the
/// input, run, report, exit.
fn in_child(mut input: File, pipe: libc::c_int, run: impl FnOnce(Vec<u8>) -> Vec<u8>) -> ! {
    silence_standard_streams();
    let mut len = [0u8; 8];
    let given = input.read_exact(&mut len).and_then(|()| {
        let mut given = vec![0u8; u64::from_le_bytes(len) as usize];
        input.read_exact(&mut given).map(|()| given)
    });
    let bytes = match given {
        Ok(given) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(given)))
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        // SAFETY: `rest` is a live byte slice and `pipe` the open write end.
        let n = unsafe { libc::write(pipe, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            break;
        }
        rest = &rest[n as usize..];
    }
    // SAFETY: `_exit` ends the process without running anything of the
    // parent's (destructors, atexit handlers, stdio flushes).
    unsafe { libc::_exit(0) }
}

/// Points stdin, stdout and stderr at `/dev/null`.
fn silence_standard_streams() {
    // SAFETY: the path is a NUL-terminated C string.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    if null < 0 {
        // Without /dev/null, closing is the next best way not to print.
        for fd in 0..3 {
            // SAFETY: closing a standard descriptor of this child only.
            unsafe { libc::close(fd) };
        }
        return;
    }
    for fd in 0..3 {
        // SAFETY: `null` is open; `dup2` replaces this child's descriptor.
        unsafe { libc::dup2(null, fd) };
    }
}

impl Child {
    /// Sends `bytes` to the waiting child (once, after their length). A
    /// child that died meanwhile is noticed by [`Child::wait`].
    pub(crate) fn send(&mut self, bytes: &[u8]) {
        if let Some(mut input) = self.input.take() {
            let len = (bytes.len() as u64).to_le_bytes();
            // An error means the child is gone; `wait` reports that.
            let _ = input.write_all(&len).and_then(|()| input.write_all(bytes));
        }
    }

    /// Everything the child sent, once it closed the pipe; `Err` when it
    /// did not finish before `timeout` (then it is killed) or crashed
    /// before sending a whole message (the caller checks completeness).
    pub(crate) fn wait(mut self, timeout: Duration) -> Result<Vec<u8>, String> {
        let deadline = Instant::now() + timeout;
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.readable_within(left) {
                return Err(format!(
                    "the reference execution did not finish within {timeout:?}"
                ));
            }
            match self.output.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("reading the reference result: {e}")),
            }
        }
        let status = self.reap();
        if bytes.is_empty() {
            return Err(match status {
                Some(s) if libc::WIFSIGNALED(s) => format!(
                    "the reference execution was killed by signal {}",
                    libc::WTERMSIG(s)
                ),
                _ => "the reference execution sent no result".into(),
            });
        }
        Ok(bytes)
    }

    /// Waits until the pipe has data or was closed, at most `left`.
    fn readable_within(&self, left: Duration) -> bool {
        let mut pfd = libc::pollfd {
            fd: self.output.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        loop {
            // SAFETY: `pfd` is one valid pollfd for an open descriptor.
            let n = unsafe { libc::poll(&mut pfd, 1, ms) };
            if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return n > 0;
            }
        }
    }

    /// Waits for the child to end; its wait status, if there was one.
    fn reap(&mut self) -> Option<libc::c_int> {
        self.reaped = true;
        let mut status = 0;
        loop {
            // SAFETY: `pid` is this process's child, not reaped yet.
            let r = unsafe { libc::waitpid(self.pid, &mut status, 0) };
            if r == self.pid {
                return Some(status);
            }
            if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return None;
            }
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if !self.reaped {
            // SAFETY: `pid` is this process's child, not reaped yet, so the
            // id cannot have been reused.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            self.reap();
        }
    }
}
