package models

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"insectscore/scoring"
)

// BenchmarkImport imports a generated export of a million plays (or
// INSECTSCORE_HISTORY_PLAYS) from a file, once per backend, and reports
// how long it took and the process's peak resident memory during it.
// INSECTSCORE_HISTORY_EXPORT names a file to write the export to and
// keep, to time `insectscore import` on it:
//
//	INSECTSCORE_HISTORY_EXPORT=/tmp/1m.json go test ./models -run '^$' -bench Import -benchtime 1x -timeout 60m
func BenchmarkImport(b *testing.B) {
	n := historyPlays(b)
	path := os.Getenv("INSECTSCORE_HISTORY_EXPORT")
	if path == "" {
		path = filepath.Join(b.TempDir(), "export.json")
	}
	start := time.Now()
	writeExport(b, path, "bench", n, historyPlayers)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d plays, %d MB, in %s", n, st.Size()>>20, time.Since(start).Round(time.Second))
	for _, be := range backends() {
		b.Run(fmt.Sprintf("%s/plays=%d", be.name, n), func(b *testing.B) {
			var took time.Duration
			var peak int64
			for b.Loop() {
				b.StopTimer()
				s := openStore(b, be.dsn(b))
				resetPeakRSS(b)
				b.StartTimer()
				start := time.Now()
				open := func() (io.ReadCloser, error) { return os.Open(path) }
				stage := func(p ImportProgress) {
					if p.Total > 0 && p.Plays == p.Total {
						b.Logf("%s %d plays done at %s", p.Stage, p.Plays, time.Since(start).Round(time.Millisecond))
					}
				}
				if _, err := s.ImportGroupFile(ctx, open, stage); err != nil {
					b.Fatal(err)
				}
				took = time.Since(start)
				peak = peakRSS(b)
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(took.Seconds(), "s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
		})
	}
}

// writeExport writes an export of group with n Insecta plays of three
// among players players, entered as totals sheets, oldest first, as
// ExportGroup would write it, a play at a time.
func writeExport(tb testing.TB, path, group string, n, players int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	g, _ := scoring.Lookup("insecta")
	fmt.Fprintf(w, "{\n  \"format\": %q,\n  \"formatVersion\": %d,\n  \"group\": {\"id\": %q, \"name\": \"Big club\", \"createdAt\": \"2024-01-01T00:00:00Z\"},\n  \"players\": [\n",
		ExportFormat, ExportFormatVersion, group)
	for i := range players {
		sep := ","
		if i == players-1 {
			sep = ""
		}
		fmt.Fprintf(w, "    {\"id\": %q, \"name\": \"Player %02d\", \"createdAt\": \"2024-01-01T00:00:00Z\"}%s\n", seedPlayerID(group, i), i, sep)
	}
	w.WriteString("  ],\n  \"plays\": [\n")
	// Scoring is the same for the same totals: score each set once.
	scored := map[string]*scoring.Result{}
	for i := range n {
		totals := []int{(i * 7) % 41, (i * 13) % 37, (i * 29) % 43}
		key := fmt.Sprint(totals)
		req := scoring.Request{}
		for seat, total := range totals {
			req.Players = append(req.Players, scoring.PlayerInput{Name: "Player " + strconv.Itoa(seat),
				Board: json.RawMessage(`{"totals": {"track": ` + strconv.Itoa(total) + `}}`)})
		}
		res := scored[key]
		if res == nil {
			if res, err = scoring.Score(g, req); err != nil {
				tb.Fatal(err)
			}
			scored[key] = res
		}
		var pps []exportPlayPlayer
		for seat, r := range res.Results {
			j := (i + seat*7) % players
			pps = append(pps, exportPlayPlayer{Seat: seat, PlayerID: seedPlayerID(group, j), NameAsEntered: fmt.Sprintf("Player %02d", j),
				Total: r.Total, Rank: r.Rank, Winner: r.Winner, Breakdown: mustJSON(tb, r.Breakdown), Board: req.Players[seat].Board})
		}
		// The standings name the players as scored: the import reads
		// past them.
		at := seedFinish(i)
		p := exportPlay{ID: seedPlayID(i), Game: "insecta", Variants: map[string]int{}, StartedAt: at.Add(-time.Hour), FinishedAt: at,
			Standings: mustJSON(tb, res), Players: pps}
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(p); err != nil {
			tb.Fatal(err)
		}
		w.WriteString("    ")
		w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
		if i < n-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString("  ]\n}\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
}

func mustJSON(tb testing.TB, v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// resetPeakRSS starts the process's peak resident memory (VmHWM) afresh.
func resetPeakRSS(tb testing.TB) {
	// What the process allocated before (writing the export file) stays
	// resident until the runtime returns it; return it now, or the peak
	// would start from it.
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Logf("cannot reset the peak RSS: %v", err)
	}
}

// peakRSS is the process's peak resident memory in bytes since the last
// resetPeakRSS.
func peakRSS(tb testing.TB) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}
