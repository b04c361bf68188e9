//go:build unix

package live

import (
	"net"
	"syscall"
)

// socketWriter writes to a socket as far as it takes without waiting, so
// the hub can write a change to a thousand streams from one goroutine: a
// net.Conn write would park it on the first full socket. It writes to
// the socket's descriptor itself, without the runtime's bookkeeping of a
// net.Conn write (its lock and poller state, a tenth of the hub's time
// for each stream). That is safe only while the connection is open: the
// stream lets the hub write only between attach and detach, both under
// its lock, and its connection is closed only once Run has returned.
type socketWriter struct {
	fd int
}

// newSocketWriter returns the writer of conn, or nil when conn is no
// socket (the stream's goroutine then writes everything).
func newSocketWriter(conn net.Conn) *socketWriter {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &socketWriter{fd: -1}
	if raw.Control(func(fd uintptr) { w.fd = int(fd) }) != nil || w.fd < 0 {
		return nil
	}
	return w
}

// tryWrite writes b to the socket as far as it takes it without waiting
// (the runtime keeps a net.Conn's socket non-blocking): done when it took
// everything, was full (EAGAIN) or failed. Its caller holds the stream's
// lock, so writes do not overlap.
func (w *socketWriter) tryWrite(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := syscall.Write(w.fd, b[n:])
		if m > 0 {
			n += m
		}
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return n, nil
		case err != nil:
			return n, err
		case m <= 0:
			return n, nil
		}
	}
	return n, nil
}
