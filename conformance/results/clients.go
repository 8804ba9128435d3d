package results

import (
	"cmp"
	"regexp"
	"slices"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// A ClientSummary is what one client's requests came to: how many it
// made, how many broke no rule, and its breaches and notes by the row
// they cite.
type ClientSummary struct {
	Client     string      `json:"client"` // its row (observe.ClientRow)
	Requests   int         `json:"requests"`
	Conforming int         `json:"conforming"`
	Breaches   []RuleCount `json:"breaches"`
	Notes      []RuleCount `json:"notes"`
}

// A RuleCount is how often one row was broken (or noted), with one
// example: the result's id and what it said.
type RuleCount struct {
	Row     string `json:"row"`
	Count   int    `json:"count"`
	Example string `json:"example"`
	Said    string `json:"said"`
}

// citedRow reads the row a finding or a note cites: its last "spec ROW".
var citedRow = regexp.MustCompile(`spec ([0-9a-z][^\s:;,)]*)`)

func rowOf(text string) string {
	m := citedRow.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return "(no row)"
	}
	return m[len(m)-1][1]
}

// Clients sums the client side of rs per client, in the order each was
// first seen; rows by count, then by row.
func Clients(rs []Result) []ClientSummary {
	var out []*ClientSummary
	byClient := map[string]*ClientSummary{}
	for _, r := range rs {
		if r.Side != SideClient {
			continue
		}
		c := byClient[r.Model]
		if c == nil {
			c = &ClientSummary{Client: r.Model, Breaches: []RuleCount{}, Notes: []RuleCount{}}
			byClient[r.Model] = c
			out = append(out, c)
		}
		c.Requests++
		if r.Status == vocab.StatusPass {
			c.Conforming++
		}
		for _, reason := range r.Reasons {
			c.Breaches = count(c.Breaches, rowOf(reason.Message), r.Case, reason.String())
		}
		for _, n := range r.Notes {
			c.Notes = count(c.Notes, rowOf(n), r.Case, n)
		}
	}
	sums := make([]ClientSummary, len(out))
	for i, c := range out {
		for _, rows := range [][]RuleCount{c.Breaches, c.Notes} {
			slices.SortStableFunc(rows, func(a, b RuleCount) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Row, b.Row)) })
		}
		sums[i] = *c
	}
	return sums
}

func count(rows []RuleCount, row, example, said string) []RuleCount {
	for i := range rows {
		if rows[i].Row == row {
			rows[i].Count++
			return rows
		}
	}
	return append(rows, RuleCount{Row: row, Example: example, Said: said, Count: 1})
}
