//go:build !js

package scoring

import "testing"

// Tests of what the fast reader's scoring allocates, where gremlins found
// a bound that moves nothing but an allocation.

// TestInsectaBoardsOnTheStack: a table's boards take no allocation up to
// Insecta's most players (gremlins: insecta.go:209).
func TestInsectaBoardsOnTheStack(t *testing.T) {
	var req Request
	if !readRequest(fourPlayerInsecta(t), &req, "insecta") {
		t.Fatal("not read")
	}
	// One past the most: a fifth player, who collected nothing.
	fifth := PlayerInput{Name: "Eve", read: new(insectaBoard)}
	players := append(req.Players[:insectaMaxPlayers:insectaMaxPlayers], fifth)
	g := insectaGame(t).(insecta)
	allocs := make([]float64, len(players)+1)
	for n := 1; n <= len(players); n++ {
		allocs[n] = testing.AllocsPerRun(10, func() {
			if _, err := g.Evaluate(players[:n], req.Variants); err != nil {
				t.Fatal(err)
			}
		})
	}
	for n := 2; n <= insectaMaxPlayers; n++ {
		if allocs[n] != allocs[1] {
			t.Errorf("%d players allocate %v times, 1 player %v", n, allocs[n], allocs[1])
		}
	}
	// The test sees the boards: past the most, they take one.
	if past := insectaMaxPlayers + 1; allocs[past] <= allocs[1] {
		t.Errorf("%d players allocate %v times, want more than 1 player's %v", past, allocs[past], allocs[1])
	}
}

// TestBlockReused: an arena's block is reused when it holds n, to the
// last element, and replaced when it does not (gremlins: fastjson.go:399).
func TestBlockReused(t *testing.T) {
	s := make([]int, 3, 5)
	if got := block(s, 5); len(got) != 0 || cap(got) != 5 || &got[:1][0] != &s[0] {
		t.Errorf("block of cap 5 for 5: len %d, cap %d, reused %v", len(got), cap(got), &got[:1][0] == &s[0])
	}
	if got := block(s, 6); len(got) != 0 || cap(got) != 6 {
		t.Errorf("block of cap 5 for 6: len %d, cap %d", len(got), cap(got))
	}
}

// TestScoreArenaForInsecta: a score request reads its boards into an
// arena for Insecta, the one game the request reader reads boards of
// (gremlins: fastjson.go:414).
func TestScoreArenaForInsecta(t *testing.T) {
	a := scoreArena("insecta")
	if a == nil {
		t.Fatal("no arena for Insecta")
	}
	a.release()
	for _, game := range []string{"insectarium", "insektenhotel", ""} {
		if scoreArena(game) != nil {
			t.Errorf("an arena for %q", game)
		}
	}
}

// TestValidBoardBuildsNoPointer: validating a valid board, its tiles and
// its medals, allocates nothing: a pointer is built only for a problem.
func TestValidBoardBuildsNoPointer(t *testing.T) {
	var req Request
	if !readRequest(fourPlayerInsecta(t), &req, "insecta") {
		t.Fatal("not read")
	}
	for i, p := range req.Players {
		b := p.read.(*insectaBoard)
		if len(b.Tiles) == 0 {
			t.Fatalf("board %d has no tiles", i)
		}
		var verr ValidationError
		allocs := testing.AllocsPerRun(10, func() {
			verr.Errors = verr.Errors[:0]
			b.validate("/players/0/board", &verr)
		})
		if len(verr.Errors) != 0 || allocs != 0 {
			t.Errorf("board %d (%d tiles, %d medals): %v, with %v allocations", i, len(b.Tiles), len(b.Medals), verr.Errors, allocs)
		}
	}
}
