package results

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// CauseGroup is every result that one cause made fail: what a triage reads
// instead of a line per case × model.
type CauseGroup struct {
	Cause    string
	Deciding bool         // the results decide the verdict (verified, negative; strict with --strict)
	Results  int          // results with a reason of this cause
	Cells    int          // distinct model × feature cells among them
	Cases    []string     // their case ids, sorted
	Example  Result       // the first such result
	Reason   vocab.Reason // its reason of this cause
}

// GroupByCause groups the results that failed (Result.Failed: fail and
// error, not a call the interrupt cut) by the causes of their reasons,
// deciding groups first, then by size. A result with reasons of two
// causes is in both groups.
func GroupByCause(rs []Result, strict bool) []CauseGroup {
	type key struct {
		cause    string
		deciding bool
	}
	groups := map[key]*CauseGroup{}
	cells := map[key]map[[2]string]bool{}
	var order []key
	for _, r := range rs {
		if !r.Failed() {
			continue
		}
		seen := map[string]bool{}
		for _, reason := range r.Reasons {
			if retriesNote(reason) && len(r.Reasons) > 1 {
				continue // how often it was asked: the detail of the cause beside it
			}
			c := reason.Cause()
			if seen[c] {
				continue
			}
			seen[c] = true
			k := key{c, r.Decides(strict)}
			g := groups[k]
			if g == nil {
				g = &CauseGroup{Cause: c, Deciding: k.deciding, Example: r, Reason: reason}
				groups[k], cells[k] = g, map[[2]string]bool{}
				order = append(order, k)
			}
			g.Results++
			cells[k][[2]string{r.Model, r.Feature}] = true
			if !slices.Contains(g.Cases, r.Case) {
				g.Cases = append(g.Cases, r.Case)
			}
		}
	}
	out := make([]CauseGroup, 0, len(order))
	for _, k := range order {
		g := groups[k]
		g.Cells = len(cells[k])
		slices.Sort(g.Cases)
		out = append(out, *g)
	}
	slices.SortStableFunc(out, func(a, b CauseGroup) int {
		if a.Deciding != b.Deciding {
			if a.Deciding {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.Results, a.Results)
	})
	return out
}

// retriesNote reports whether a reason only says how often a call was
// asked before its answer ("3 attempts; the 2 before the last: HTTP 500
// each time"), which the execute stage adds beside the answer's reasons.
func retriesNote(r vocab.Reason) bool { return r.Check == "transport" && r.Where == "attempts" }

// base64RE finds a run of base64 long enough to be data, not a word.
var base64RE = regexp.MustCompile(`[A-Za-z0-9+/]{64,}={0,2}`)

// Shorten replaces the base64 runs in a reason's text by their size and a
// short sha256: a reason is read by a person, who needs to tell two
// images apart, not to read them.
func Shorten(s string) string {
	return base64RE.ReplaceAllStringFunc(s, func(b string) string {
		sum := sha256.Sum256([]byte(b))
		return fmt.Sprintf("<base64: %d chars, sha256 %s>", len(b), hex.EncodeToString(sum[:6]))
	})
}

// ShortenReasons applies Shorten to every reason of r.
func (r *Result) ShortenReasons() {
	for i := range r.Reasons {
		x := &r.Reasons[i]
		x.Message, x.Expected, x.Actual = Shorten(x.Message), Shorten(x.Expected), Shorten(x.Actual)
	}
}
