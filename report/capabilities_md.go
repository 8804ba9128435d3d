package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/markdown"
)

// Glyphs of the capability map in matrix.md.
var capGlyph = map[reportv1.CapSupport]string{
	reportv1.CapSupported:    "✅",
	reportv1.CapUnsupported:  "⛔",
	reportv1.CapMixed:        "◐",
	reportv1.CapFailed:       "❌",
	reportv1.CapInconclusive: "💥",
	reportv1.CapSkip:         "⏭️",
	reportv1.CapNone:         "—",
}

// maxMDCapNotes bounds the per-model notes under each capability table.
const maxMDCapNotes = 12

// capCellMD renders a capability cell for matrix.md: ✅, ⛔, ◐ k/n (k of n calls
// passed), ❌ k/n (k of n calls failed or errored), 💥; an explained mixed
// cell is ✅ k/n; a cell with errors beside a verdict gets a trailing 💥.
func capCellMD(c reportv1.CapCell) string {
	n := c.Counts
	run := n.Total - n.Skip
	g := capGlyph[c.Support]
	switch c.Support {
	case reportv1.CapMixed:
		if c.Explained {
			g = capGlyph[reportv1.CapSupported]
		}
		g += fmt.Sprintf(" %d/%d", n.Pass, run)
	case reportv1.CapFailed:
		g += fmt.Sprintf(" %d/%d", n.Fail+n.Error, run)
	}
	if c.Support != reportv1.CapFailed && c.Support != reportv1.CapInconclusive && n.Error+n.Throttled > 0 {
		g += " 💥"
	}
	return g
}

// writeCapabilitiesMD writes the "Capability map (explore)" section: per
// feature, a table of the parameter values that some model does not fully
// support (rows param=value, columns models), a line for the rest, and per
// model what it declines.
func writeCapabilitiesMD(p func(string, ...any), r *reportv1.Report) {
	if len(r.Capabilities) == 0 {
		return
	}
	p("### Capability map (explore)\n\n")
	p("Each explore call sends one combination of parameters (all-pairs), so each call tells something about each of its values. " +
		"Per value and model: ✅ every call passed · ⛔ declined in every call · ◐ k/n passed in k of n calls, declined in other combinations · " +
		"✅ k/n declined only together with a value (or a pair) that model declines everywhere · ❌ k/n k calls failed · 💥 errored. " +
		"The explore tier never fails a run.\n\n")
	for _, c := range r.Capabilities {
		p("#### `%s`\n\n", markdown.Code(c.Feature))
		rows, rest, explained := attentionRows(c)
		writeCapTableMD(p, c, rows, r.Metadata.ModelLabel)
		writeCapRestMD(p, len(rows), rest, explained)
		writeCapNotesMD(p, c)
	}
}

// attentionRows returns the rows of a feature that need attention, and
// how many others there are (values every model fully supports); explained
// says some of those others have a mixed cell that is explained.
func attentionRows(c reportv1.Capability) (rows []reportv1.CapRow, rest int, explained bool) {
	for _, row := range c.Rows {
		if row.Attention {
			rows = append(rows, row)
			continue
		}
		rest++
		for _, cell := range row.Cells {
			explained = explained || cell.Support == reportv1.CapMixed
		}
	}
	return rows, rest, explained
}

// writeCapTableMD writes the table of the rows that need attention, each
// model's column headed by its label.
func writeCapTableMD(p func(string, ...any), c reportv1.Capability, rows []reportv1.CapRow, label func(string) string) {
	if len(rows) == 0 {
		return
	}
	p("| value |")
	for _, m := range c.Models {
		p(" %s |", markdown.Escape(label(m)))
	}
	p("\n|---|%s\n", strings.Repeat(":---:|", len(c.Models)))
	for _, row := range rows {
		p("| `%s` |", markdown.Code(reportv1.ParamValue(row.Param, row.Value)))
		for _, cell := range row.Cells {
			p(" %s |", capCellMD(cell))
		}
		p("\n")
	}
	p("\n")
}

// writeCapRestMD writes the line for the values every model supports,
// after a table of shown rows or instead of it.
func writeCapRestMD(p func(string, ...any), shown, rest int, explained bool) {
	switch {
	case shown == 0:
		p("All %d %s supported by every model", rest, markdown.Plural(rest, "value", "values"))
	case rest > 0:
		p("All other %d %s supported by every model", rest, markdown.Plural(rest, "value", "values"))
	}
	if rest > 0 {
		if explained {
			p(" (some declined only together with a value or pair the model declines)")
		}
		p(".\n\n")
	}
}

// writeCapNotesMD writes, per model that does not fully support some
// value, what it declines and fails, up to maxMDCapNotes models.
func writeCapNotesMD(p func(string, ...any), c reportv1.Capability) {
	notes := 0
	for _, s := range c.Summary {
		parts := capModelNotes(c, s)
		if len(parts) == 0 {
			continue
		}
		if notes == maxMDCapNotes {
			p("- … see report.html\n")
			break
		}
		notes++
		p("- **%s** (%d calls): %s.\n", markdown.Escape(s.Model), s.Counts.Total, strings.Join(parts, "; "))
	}
	if notes > 0 {
		p("\n")
	}
}

// capModelNotes says what a model does not fully support: the values it
// declines everywhere, its declined pairs, the mixed values no pair of
// its explains, and its failed calls.
func capModelNotes(c reportv1.Capability, s reportv1.CapModel) []string {
	var parts []string
	if len(s.Unsupported) > 0 {
		parts = append(parts, "declines "+codeList(s.Unsupported))
	}
	inPair := map[string]bool{}
	for _, pr := range s.Pairs {
		a, b, _ := strings.Cut(pr, " + ")
		inPair[a], inPair[b] = true, true
		parts = append(parts, "declines `"+markdown.Code(a)+"` together with `"+markdown.Code(b)+"`")
	}
	for _, k := range s.Mixed {
		if !inPair[k] {
			parts = append(parts, mixedNote(c, s.Model, k))
		}
	}
	if len(s.Failed) > 0 {
		parts = append(parts, failedNote(c, s))
	}
	return parts
}

// mixedNote describes one unexplained mixed value of a model: how many of
// its calls were declined, and with what.
func mixedNote(c reportv1.Capability, model, key string) string {
	for _, row := range c.Rows {
		if reportv1.ParamValue(row.Param, row.Value) != key {
			continue
		}
		for _, cell := range row.Cells {
			if cell.Model != model {
				continue
			}
			n := cell.Counts
			s := fmt.Sprintf("`%s` declined in %d of %d calls", markdown.Code(key), n.Unsupported, n.Total-n.Skip)
			if w := cell.DeclinedWith; len(w) > 0 && len(w) <= 3 {
				return s + ", each time with " + codeList(w)
			}
			var combos []string
			for i, d := range cell.Declined {
				if i == 3 {
					combos = append(combos, "…")
					break
				}
				combos = append(combos, "`"+markdown.Code(d.Case)+"` ("+markdown.Code(paramList(d.Params))+")")
			}
			return s + ": " + strings.Join(combos, ", ")
		}
	}
	return "`" + markdown.Code(key) + "`"
}

// codeList renders values as `a`, `b`.
func codeList(vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = "`" + markdown.Code(v) + "`"
	}
	return strings.Join(out, ", ")
}

// paramList renders a parameter assignment as "a=1 b=2", sorted by name.
func paramList(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = reportv1.ParamValue(k, m[k])
	}
	return strings.Join(out, " ")
}

// failedNote names the failed calls of a model (every value of a failed call
// is marked failed, so the calls say more than the values).
func failedNote(c reportv1.Capability, s reportv1.CapModel) string {
	mi := slices.Index(c.Models, s.Model)
	seen := map[string]bool{}
	var failed []reportv1.CapCall
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
			failed = append(failed, reportv1.CapCall{Case: f.Case, Params: p})
		}
	}
	slices.SortFunc(failed, func(a, b reportv1.CapCall) int { return strings.Compare(a.Case, b.Case) })
	var calls []string
	for _, f := range failed {
		calls = append(calls, "`"+markdown.Code(f.Case)+"` ("+markdown.Code(paramList(f.Params))+")")
	}
	run := s.Counts.Total - s.Counts.Skip
	if len(calls) > 3 {
		calls = append(calls[:3], "…")
	}
	return fmt.Sprintf("%d of %d calls failed or errored: %s", len(seen), run, strings.Join(calls, ", "))
}
