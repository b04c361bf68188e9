//go:build unix

package live

import (
	"net"
	"syscall"
)

// The hub writes a change to each stream's socket as far as it takes it
// without waiting, so it can write to a thousand streams from one
// goroutine: a net.Conn write would park it on the first full socket. It
// writes to the socket's descriptor itself, without the runtime's
// bookkeeping of a net.Conn write (its lock and poller state, a tenth of
// the hub's time for each stream). That is safe only while the
// connection is open: the stream lets the hub write only between attach
// and detach, both under its lock, and its connection is closed only once
// Run has returned.

// socketFD returns the descriptor of conn's socket, or -1 when conn is no
// socket (the stream's goroutine then writes everything).
func socketFD(conn net.Conn) int {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if raw.Control(func(s uintptr) { fd = int(s) }) != nil {
		return -1
	}
	return fd
}

// tryWrite writes b to the socket fd as far as it takes it without
// waiting (the runtime keeps a net.Conn's socket non-blocking): done when
// it took everything, was full (EAGAIN) or failed. Its caller holds the
// stream's lock, so writes do not overlap.
func tryWrite(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := syscall.Write(fd, b[n:])
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
