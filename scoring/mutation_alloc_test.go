package scoring

import "testing"

// TestValidBoardBuildsNoPointer: validating a valid board, its tiles and
// its medals, allocates nothing: a pointer is built only for a problem.
func TestValidBoardBuildsNoPointer(t *testing.T) {
	var req Request
	if err := DecodeRequest(fourPlayerInsecta(t), &req); err != nil {
		t.Fatal(err)
	}
	for i, p := range req.Players {
		b := new(insectaBoard)
		if err := DecodeBoard(p.Board, boardPointer(i), b); err != nil {
			t.Fatalf("board %d: %v", i, err)
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
