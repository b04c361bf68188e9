//go:build !js

package scoring

import "testing"

// Tests of what the fast reader's scoring allocates, where gremlins found
// a bound that moves nothing but an allocation.

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

// TestValidBoardBuildsNoPointer: validating a valid board, its tiles and
// its medals, allocates nothing: a pointer is built only for a problem.
func TestValidBoardBuildsNoPointer(t *testing.T) {
	var req Request
	if !readRequest(fourPlayerInsecta(t), &req) {
		t.Fatal("not read")
	}
	for i, p := range req.Players {
		b := new(insectaBoard)
		if !readInsectaBoard(p.Board, b) {
			t.Fatalf("board %d not read", i)
		}
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
