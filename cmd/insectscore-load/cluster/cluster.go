// Package cluster runs insectscore replicas on one PostgreSQL database
// behind a round-robin balancer, and measures what the phones following
// its tables see while boards are written, a replica is killed and
// restarted, or the database goes away: how long a write takes to reach
// every stream of its table, whether any stream misses a version, and
// whether every acknowledged write is stored.
//
// The load tool (insectscore-load replicas) runs it at convention scale;
// a test in cmd/insectscore runs a small version on every CI run.
package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Replica is one insectscore server process.
type Replica struct {
	Name string
	// Addr is where it listens (host:port), the same across restarts.
	Addr string
	// Started is when its process last started.
	Started time.Time

	cmd   []string
	env   []string
	db    string
	log   io.Writer
	level string
	mu    sync.Mutex
	proc  *exec.Cmd
	done  chan struct{}
}

// Cluster is the replicas and their balancer.
type Cluster struct {
	Replicas []*Replica
	Balancer *Balancer
}

// Options say how to start the replicas.
type Options struct {
	// Server is the command that runs insectscore: the binary and any
	// arguments before "serve".
	Server []string
	// Env is added to the environment of each server.
	Env []string
	// DB is the PostgreSQL DSN every replica serves.
	DB string
	// Replicas is how many to start.
	Replicas int
	// Log receives the servers' standard error; nil discards it.
	Log io.Writer
	// LogLevel is the servers' -log-level; "warn" when empty.
	LogLevel string
}

// Start starts the replicas, waits until each answers /readyz, and puts
// the balancer in front of them.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	c := &Cluster{}
	var names, hosts []string
	for i := range o.Replicas {
		addr, err := FreeAddr()
		if err != nil {
			return nil, err
		}
		r := &Replica{Name: fmt.Sprintf("r%d", i+1), Addr: addr, cmd: o.Server, env: o.Env, db: o.DB, log: o.Log, level: o.LogLevel}
		if r.level == "" {
			r.level = "warn"
		}
		if err := r.Start(); err != nil {
			c.Stop()
			return nil, err
		}
		c.Replicas = append(c.Replicas, r)
		names, hosts = append(names, r.Name), append(hosts, addr)
	}
	for _, r := range c.Replicas {
		if _, err := r.WaitReady(ctx, 2*time.Minute); err != nil {
			c.Stop()
			return nil, err
		}
	}
	b, err := NewBalancer(names, hosts)
	if err != nil {
		c.Stop()
		return nil, err
	}
	c.Balancer = b
	return c, nil
}

// Stop stops the balancer and ends every replica.
func (c *Cluster) Stop() {
	if c.Balancer != nil {
		c.Balancer.Close()
	}
	for _, r := range c.Replicas {
		r.Kill()
	}
}

// FreeAddr is a loopback address with a port free now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Start starts the replica's process (again, after Kill).
func (r *Replica) Start() error {
	args := append(append([]string{}, r.cmd[1:]...), "serve", "-addr", r.Addr, "-db", r.db,
		"-log-level", r.level, "-trusted-proxies", "127.0.0.1", "-max-streams", "20000")
	cmd := exec.Command(r.cmd[0], args...)
	cmd.Env = append(os.Environ(), r.env...)
	cmd.Stdout, cmd.Stderr = r.log, prefixed(r.log, r.Name)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start replica %s: %w", r.Name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	r.mu.Lock()
	r.proc, r.done, r.Started = cmd, done, time.Now()
	r.mu.Unlock()
	return nil
}

// Kill ends the replica's process at once, as kill -9 does, and waits
// for it to be gone.
func (r *Replica) Kill() {
	r.mu.Lock()
	proc, done := r.proc, r.done
	r.mu.Unlock()
	if proc == nil {
		return
	}
	proc.Process.Signal(syscall.SIGKILL)
	<-done
}

// Readiness is what /readyz said while a replica started.
type Readiness struct {
	// Ready is how long after the start /readyz first said 200.
	Ready time.Duration
	// Refused, Unready are how many probes found no listener, or got
	// another status, before.
	Refused, Unready int
}

// WaitReady asks the replica's /readyz every 20 ms until it says 200.
func (r *Replica) WaitReady(ctx context.Context, within time.Duration) (Readiness, error) {
	var out Readiness
	// A loaded machine can take seconds to answer a probe.
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(within)
	r.mu.Lock()
	started, done := r.Started, r.done
	r.mu.Unlock()
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return out, fmt.Errorf("replica %s exited while starting", r.Name)
		case <-ctx.Done():
			return out, ctx.Err()
		default:
		}
		resp, err := client.Get("http://" + r.Addr + "/readyz")
		if err != nil {
			out.Refused++
		} else {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				out.Ready = time.Since(started)
				return out, nil
			}
			out.Unready++
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out, fmt.Errorf("replica %s not ready within %s", r.Name, within)
}

// prefixed writes each line of a server's log with its name in front.
func prefixed(w io.Writer, name string) io.Writer {
	if w == io.Discard {
		return w
	}
	return &prefixWriter{w: w, prefix: []byte(name + ": ")}
}

type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	mid    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]byte, 0, len(b)+len(p.prefix))
	for _, c := range b {
		if !p.mid {
			out = append(out, p.prefix...)
		}
		out = append(out, c)
		p.mid = c != '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
