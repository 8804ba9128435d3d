package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Glyphs of the capability map in matrix.md.
var capGlyph = map[CapVerdict]string{
	CapSupported:    "✅",
	CapUnsupported:  "⛔",
	CapMixed:        "◐",
	CapFailed:       "❌",
	CapInconclusive: "💥",
	CapSkip:         "⏭️",
	CapNone:         "—",
}

// maxMDCapNotes bounds the per-model notes under each capability table.
const maxMDCapNotes = 12

// glyph renders a capability cell for matrix.md: ✅, ⛔, ◐ k/n (k of n calls
// passed), ❌ k/n (k of n calls failed or errored), 💥; an explained mixed
// cell is ✅ k/n; a cell with errors beside a verdict gets a trailing 💥.
func (c CapCell) glyph() string {
	n := c.Counts
	run := n.Total - n.Skip
	g := capGlyph[c.Verdict]
	switch c.Verdict {
	case CapMixed:
		if c.Explained {
			g = capGlyph[CapSupported]
		}
		g += fmt.Sprintf(" %d/%d", n.Pass, run)
	case CapFailed:
		g += fmt.Sprintf(" %d/%d", n.Fail+n.Error, run)
	}
	if c.Verdict != CapFailed && c.Verdict != CapInconclusive && n.Error+n.Throttled > 0 {
		g += " 💥"
	}
	return g
}

// writeCapabilitiesMD writes the "Capability map (explore)" section: per
// feature, a table of the parameter values that some model does not fully
// support (rows param=value, columns models), a line for the rest, and per
// model what it declines.
func (r *Report) writeCapabilitiesMD(p func(string, ...any)) {
	if len(r.Capabilities) == 0 {
		return
	}
	p("### Capability map (explore)\n\n")
	p("Each explore call sends one combination of parameters (all-pairs), so each call tells something about each of its values. " +
		"Per value and model: ✅ every call passed · ⛔ declined in every call · ◐ k/n passed in k of n calls, declined in other combinations · " +
		"✅ k/n declined only together with a value (or a pair) that model declines everywhere · ❌ k/n k calls failed · 💥 errored. " +
		"The explore tier never fails a run.\n\n")
	for _, c := range r.Capabilities {
		p("#### `%s`\n\n", mdCode(c.Feature))
		rest, explained := 0, false
		var rows []CapRow
		for _, row := range c.Rows {
			if row.Attention {
				rows = append(rows, row)
				continue
			}
			rest++
			for _, cell := range row.Cells {
				explained = explained || cell.Verdict == CapMixed
			}
		}
		if len(rows) > 0 {
			p("| value |")
			for _, m := range c.Models {
				p(" %s |", mdEscape(m))
			}
			p("\n|---|%s\n", strings.Repeat(":---:|", len(c.Models)))
			for _, row := range rows {
				p("| `%s` |", mdCode(pv(row.Param, row.Value)))
				for _, cell := range row.Cells {
					p(" %s |", cell.glyph())
				}
				p("\n")
			}
			p("\n")
		}
		switch {
		case len(rows) == 0:
			p("All %d %s supported by every model", rest, plural(rest, "value", "values"))
		case rest > 0:
			p("All other %d %s supported by every model", rest, plural(rest, "value", "values"))
		}
		if rest > 0 {
			if explained {
				p(" (some declined only together with a value or pair the model declines)")
			}
			p(".\n\n")
		}

		notes := 0
		for _, s := range c.Summary {
			var parts []string
			if len(s.Unsupported) > 0 {
				parts = append(parts, "declines "+codeList(s.Unsupported))
			}
			inPair := map[string]bool{}
			for _, pr := range s.Pairs {
				a, b, _ := strings.Cut(pr, " + ")
				inPair[a], inPair[b] = true, true
				parts = append(parts, "declines `"+mdCode(a)+"` together with `"+mdCode(b)+"`")
			}
			for _, k := range s.Mixed {
				if !inPair[k] {
					parts = append(parts, mixedNote(c, s.Model, k))
				}
			}
			if len(s.Failed) > 0 {
				parts = append(parts, failedNote(c, s))
			}
			if len(parts) == 0 {
				continue
			}
			if notes == maxMDCapNotes {
				p("- … see report.html\n")
				break
			}
			notes++
			p("- **%s** (%d calls): %s.\n", mdEscape(s.Model), s.Counts.Total, strings.Join(parts, "; "))
		}
		if notes > 0 {
			p("\n")
		}
	}
}

// mixedNote describes one unexplained mixed value of a model: how many of
// its calls were declined, and with what.
func mixedNote(c Capability, model, key string) string {
	for _, row := range c.Rows {
		if pv(row.Param, row.Value) != key {
			continue
		}
		for _, cell := range row.Cells {
			if cell.Model != model {
				continue
			}
			n := cell.Counts
			s := fmt.Sprintf("`%s` declined in %d of %d calls", mdCode(key), n.Unsupported, n.Total-n.Skip)
			if w := cell.DeclinedWith; len(w) > 0 && len(w) <= 3 {
				return s + ", each time with " + codeList(w)
			}
			var combos []string
			for i, d := range cell.Declined {
				if i == 3 {
					combos = append(combos, "…")
					break
				}
				combos = append(combos, "`"+mdCode(d.Case)+"` ("+mdCode(paramList(d.Params))+")")
			}
			return s + ": " + strings.Join(combos, ", ")
		}
	}
	return "`" + mdCode(key) + "`"
}

// codeList renders values as `a`, `b`.
func codeList(vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = "`" + mdCode(v) + "`"
	}
	return strings.Join(out, ", ")
}

// paramList renders a parameter assignment as "a=1 b=2", sorted by name.
func paramList(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = pv(k, m[k])
	}
	return strings.Join(out, " ")
}

// failedNote names the failed calls of a model (every value of a failed call
// is marked failed, so the calls say more than the values).
func failedNote(c Capability, s CapModel) string {
	mi := slices.Index(c.Models, s.Model)
	seen := map[string]bool{}
	var failed []CapCall
	for _, row := range c.Rows {
		if mi < 0 || mi >= len(row.Cells) {
			break
		}
		for _, f := range row.Cells[mi].Failed {
			if seen[f.Case] {
				continue
			}
			seen[f.Case] = true
			p := maps.Clone(f.Params)
			p[row.Param] = row.Value
			failed = append(failed, CapCall{Case: f.Case, Params: p})
		}
	}
	slices.SortFunc(failed, func(a, b CapCall) int { return strings.Compare(a.Case, b.Case) })
	var calls []string
	for _, f := range failed {
		calls = append(calls, "`"+mdCode(f.Case)+"` ("+mdCode(paramList(f.Params))+")")
	}
	run := s.Counts.Total - s.Counts.Skip
	if len(calls) > 3 {
		calls = append(calls[:3], "…")
	}
	return fmt.Sprintf("%d of %d calls failed or errored: %s", len(seen), run, strings.Join(calls, ", "))
}
