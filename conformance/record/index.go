package record

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Index matches any client's request to the rounds of a recording, made by
// a run or by a relay: the stand-in of serve --replay.
type Index struct {
	store   *Store
	entries []entry
	byKey   map[RequestKey][]int // entry indexes, in file and round order

	mu   sync.Mutex
	next map[RequestKey]int // the next of byKey[k] to serve
}

// entry is one recorded round with a response.
type entry struct {
	file  string
	round int
	rd    Round
}

// Match is a round that answers a request, and where it is kept.
type Match struct {
	Round *Round
	File  string // relative to the recording
	Index int    // the round's index in its file, from 0
}

// NewIndex reads every exchange of a recording. Rounds without a response
// (the gateway never answered), cut by the recording client, or recorded
// only up to the cap are left out: they have nothing whole to answer with.
func NewIndex(s *Store) (*Index, error) {
	files, err := s.Files()
	if err != nil {
		return nil, err
	}
	ix := &Index{store: s, byKey: map[RequestKey][]int{}, next: map[RequestKey]int{}}
	for _, f := range files {
		ex, err := s.Read(f)
		if err != nil {
			return nil, err
		}
		for i, rd := range ex.Rounds {
			if rd.Response == nil || rd.Cut != "" || rd.OverCap > 0 {
				continue
			}
			k := rd.Request.MatchKey()
			ix.byKey[k] = append(ix.byKey[k], len(ix.entries))
			ix.entries = append(ix.entries, entry{file: f, round: i, rd: rd})
		}
	}
	return ix, nil
}

// Len is the number of rounds that can answer.
func (ix *Index) Len() int { return len(ix.entries) }

// Find returns the round that answers k: rounds recorded for the same
// request are served in turn, and start over when all were served.
func (ix *Index) Find(k RequestKey) (Match, bool) {
	es := ix.byKey[k]
	if len(es) == 0 {
		return Match{}, false
	}
	ix.mu.Lock()
	n := ix.next[k]
	ix.next[k] = (n + 1) % len(es)
	ix.mu.Unlock()
	e := &ix.entries[es[n]]
	return Match{Round: &e.rd, File: e.file, Index: e.round}, true
}

// Nearest describes the recorded round closest to k, for the answer to a
// request nothing matches: the one with the fewest differences, key kind,
// method and path weighing most. It returns "" for an empty recording.
func (ix *Index) Nearest(k RequestKey) string {
	best, bestScore := -1, -1
	for i, e := range ix.entries {
		rk := e.rd.Request.MatchKey()
		score := 0
		for _, same := range []struct {
			ok     bool
			weight int
		}{{rk.Path == k.Path, 16}, {rk.Method == k.Method, 8}, {rk.Key == k.Key, 4}, {rk.Model == k.Model, 2}, {rk.Digest == k.Digest, 1}} {
			if same.ok {
				score += same.weight
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return ""
	}
	e := ix.entries[best]
	diffs := k.differences(e.rd.Request.MatchKey())
	slices.Sort(diffs)
	return fmt.Sprintf("%s round %d (%s %s, key %s, model %s): differs in %s", filepath.ToSlash(filepath.Join(ix.store.Dir(), e.file)), e.round+1,
		e.rd.Request.Method, e.rd.Request.Path, e.rd.Request.Key, orNone(e.rd.Request.Model), strings.Join(diffs, "; "))
}
