package scoring

import "testing"

// BenchmarkScore measures one full table through Score, as the score
// endpoint and every live board update run it.
func BenchmarkScore(b *testing.B) {
	tables := []struct {
		game   string
		boards []string
	}{
		{"insectarium", []string{insectariumExampleBoard, insectariumExampleBoard, insectariumExampleBoard, insectariumExampleBoard}},
		{"insecta", []string{insectaLaura, insectaGeorge}},
		{"insektenhotel", []string{hotelFullBlue, hotelFiveGreen}},
	}
	names := []string{"Ana", "Ben", "Cleo", "Dev"}
	for _, tt := range tables {
		g, _ := Lookup(tt.game)
		req := Request{}
		for i, board := range tt.boards {
			req.Players = append(req.Players, PlayerInput{Name: names[i], Board: []byte(board)})
		}
		b.Run(tt.game, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Score(g, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
