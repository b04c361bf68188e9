package scoring

// The Insecta rules as they were before they stopped building pointers,
// maps and lists on the way (issue 10, P1), kept verbatim as the reference
// the new ones must agree with on random tables (TestInsectaRulesAgree).

import (
	"fmt"
	"slices"
	"strings"
)

func oldCheckResearchers(players []PlayerInput, boards []insectaBoard, ok []bool, verr *ValidationError) {
	first := map[string]int{}
	for i, b := range boards {
		if !ok[i] || insectaLabel(insectaResearchers, b.Researcher) == "" {
			continue
		}
		j, dup := first[b.Researcher]
		if !dup {
			first[b.Researcher] = i
			continue
		}
		verr.Add(fmt.Sprintf("/players/%d/board/researcher", i),
			"%s is already the researcher of %s; each player draws their own researcher",
			insectaLabel(insectaResearchers, b.Researcher), insectaWho(players, j))
	}
}

// insectaCheckContinents bounds the insects of each continent across the
// table by the box's two piles (insectaPerContinent). The problem goes at
// the tile past the limit and names every tile of that continent.
func oldCheckContinents(boards []insectaBoard, ok []bool, verr *ValidationError) {
	var tiles [5][]string
	for i, b := range boards {
		if !ok[i] {
			continue
		}
		for n, t := range b.Tiles {
			if t.Kind != "insect" || t.Continent == nil {
				continue
			}
			if c := insectaIndex(insectaContinents, *t.Continent); c >= 0 {
				tiles[c] = append(tiles[c], fmt.Sprintf("/players/%d/board/tiles/%d/continent", i, n))
			}
		}
	}
	for c, ptrs := range tiles {
		if len(ptrs) <= insectaPerContinent {
			continue
		}
		name, past := insectaContinents[c].Label, ptrs[insectaPerContinent]
		ptrs = append([]string{past}, slices.Delete(ptrs, insectaPerContinent, insectaPerContinent+1)...)
		verr.AddAll(ptrs, "the box has %d insects from %s (a pile of 8 on camp A and 7 on camp B): at most %d at one table, and these collections hold %d",
			insectaPerContinent, name, insectaPerContinent, len(ptrs))
	}
}

// insectaCheckMedalCount bounds the medals claimed: each player has
// insectaMarkers markers to claim with, and only insectaGameMedals medals
// come into a game, so the claims of a table name no more different ones.
// Unknown medals are already reported and left out.
func oldCheckMedalCount(boards []insectaBoard, ok []bool, verr *ValidationError) {
	var all []string
	first := map[string]bool{}
	cross := ""
	for i, b := range boards {
		if !ok[i] {
			continue
		}
		if len(b.Medals) > insectaMarkers {
			ptrs := make([]string, 0, len(b.Medals))
			for n := range b.Medals {
				ptrs = append(ptrs, fmt.Sprintf("/players/%d/board/medals/%d", i, n))
			}
			past := ptrs[insectaMarkers]
			ptrs = append([]string{past}, slices.Delete(ptrs, insectaMarkers, insectaMarkers+1)...)
			verr.AddAll(ptrs, "a player has %d markers on the Researcher tile, one for each medal claimed: at most %d medals each, and this board claims %d",
				insectaMarkers, insectaMarkers, len(b.Medals))
		}
		for n, m := range b.Medals {
			if insectaLabel(insectaMedals, m.Medal) == "" {
				continue
			}
			ptr := fmt.Sprintf("/players/%d/board/medals/%d/medal", i, n)
			all = append(all, ptr)
			if !first[m.Medal] {
				first[m.Medal] = true
				if len(first) == insectaGameMedals+1 {
					cross = ptr
				}
			}
		}
	}
	if cross == "" {
		return
	}
	ptrs := append([]string{cross}, slices.DeleteFunc(all, func(p string) bool { return p == cross })...)
	verr.AddAll(ptrs, "%d medals come into a game, 3 face down and 3 face up: at most %d different medals at one table, and these boards claim %d",
		insectaGameMedals, insectaGameMedals, len(first))
}

func (b *insectaBoard) oldLooseTiles(cells *[insectaRows][insectaCols]int) []int {
	group := b.oldGroups(cells)
	sizes := map[int]int{}
	for _, g := range group {
		if g >= 0 {
			sizes[g]++
		}
	}
	if len(sizes) < 2 {
		return nil
	}
	// Groups are numbered in tile order, so on a tie in size the group
	// holding the earliest tile stays and the later ones are reported.
	keep := 0
	for g := 1; g < len(sizes); g++ {
		if sizes[g] > sizes[keep] {
			keep = g
		}
	}
	var out []int
	for n, g := range group {
		if g >= 0 && g != keep {
			out = append(out, n)
		}
	}
	return out
}

func (b *insectaBoard) oldGroups(cells *[insectaRows][insectaCols]int) []int {
	group := make([]int, len(b.Tiles))
	for n := range group {
		group[n] = -1
	}
	next := 0
	for n, t := range b.Tiles {
		r, c, ok := t.placed()
		if !ok || cells[r][c] != n+1 || group[n] >= 0 {
			continue
		}
		b.oldFlood(cells, group, r, c, next)
		next++
	}
	return group
}

// flood gives group g to every tile linked, directly or not, to the tile on
// row r, column c.
func (b *insectaBoard) oldFlood(cells *[insectaRows][insectaCols]int, group []int, r, c, g int) {
	stack := [][2]int{{r, c}}
	group[cells[r][c]-1] = g
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		kind := b.Tiles[cells[p[0]][p[1]]-1].Kind
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				nr, nc := p[0]+dr, p[1]+dc
				if (dr == 0 && dc == 0) || nr < 0 || nr >= insectaRows || nc < 0 || nc >= insectaCols {
					continue
				}
				m := cells[nr][nc] - 1
				if m < 0 || group[m] >= 0 {
					continue
				}
				side := dr == 0 || dc == 0
				if side != (b.Tiles[m].Kind == kind) {
					group[m] = g
					stack = append(stack, [2]int{nr, nc})
				}
			}
		}
	}
}

// validateMedals checks each claimed medal: a known id, claimed once (a

func (b *insectaBoard) oldValidateMedals(base string, verr *ValidationError) {
	seen := map[string]bool{}
	for n, m := range b.Medals {
		before := len(verr.Errors)
		const ptr = "" // the medal's pointer is put before its problems' at the end
		switch {
		case m.Medal == "":
			verr.Add(ptr+"/medal", "choose the medal")
		case insectaLabel(insectaMedals, m.Medal) == "":
			verr.Add(ptr+"/medal", "%q is not a medal; use for example continent:africa, order:coleoptera, size:small, institution:entomological-society or institution:any", m.Medal)
		case seen[m.Medal]:
			verr.Add(ptr+"/medal", "%s is already listed; a medal is claimed once and its marker moved up later",
				insectaLabel(insectaMedals, m.Medal))
		}
		seen[m.Medal] = true
		switch {
		case m.Level == nil:
			verr.Add(ptr+"/level", "give the level of your marker on this medal")
		case *m.Level < 1 || *m.Level > insectaMaxMedalLevel:
			verr.Add(ptr+"/level", "a medal level is 1 to %d, not %d", insectaMaxMedalLevel, *m.Level)
		}
		if len(verr.Errors) > before {
			verr.prefix(before, base, fmt.Sprintf("/medals/%d", n))
		}
	}
}

// score computes a valid board's final score, tiebreak and warnings, with
// the sources of each line: the track and the fragments, each wreathed
// insect, the first insect of each continent when all five are there, and

func (b *insectaBoard) oldDistinctInsects(src []Source) []Source {
	// An unnamed insect's key is its traits, kept apart from names.
	type species struct {
		name                   string
		unnamed                bool
		continent, order, size string
	}
	seen := make(map[species]bool, len(b.Tiles))
	for n, t := range b.Tiles {
		if t.Kind != "insect" {
			continue
		}
		name := strings.TrimSpace(insectaText(t.Name))
		key := species{name: NameKey(name)}
		label := name
		if name == "" {
			order, size := insectaText(t.Order), insectaText(t.Size)
			key = species{unnamed: true, continent: *t.Continent, order: order, size: size}
			label = insectaTraits(*t.Continent, order, size)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		src = append(src, Source{Pointer: indexPointer(insectaTilePointers, "/tiles/", n), Points: 1, Label: label})
	}
	return src
}

// insectaTraits names an unnamed insect by what was entered of it:
