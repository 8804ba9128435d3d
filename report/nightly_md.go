package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/markdown"
)

// The parts of matrix.md a nightly job reads beyond the matrix: what the
// run cost, the known deviations (waivers) apart from the failures,
// failures that passed when re-run (flaky), and models no case covers.

// describeCost says what the run planned and spent: "cost: 16.38 units spent
// (12 requests answered 4xx/5xx counted apart, at 0), 12.5 planned,
// budget 20".
func describeCost(c reportv1.Cost) string {
	s := fmt.Sprintf("cost: %s units spent", units(c.Actual))
	if c.Refused > 0 {
		s += fmt.Sprintf(" (%d requests answered 4xx/5xx counted apart, at 0)", c.Refused)
	}
	if c.Planned != nil {
		s += ", " + units(*c.Planned) + " planned"
	}
	if c.Budget > 0 {
		s += ", budget " + units(c.Budget)
	}
	return s
}

// units prints cost units without float noise: 16.38, 12.5, 20.
func units(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// linkRE accepts the links printed as Markdown links: plain http(s) URLs
// with nothing that could end the link or start markup. Anything else is
// printed as escaped text.
var linkRE = regexp.MustCompile(`^https?://[^\s<>()\[\]\x60|\\*_~]+$`)

func mdLink(s string) string {
	if linkRE.MatchString(s) {
		return "[" + markdown.Escape(s) + "](" + s + ")"
	}
	return markdown.Escape(s)
}

// waiverGlyph marks each waiver state in matrix.md.
var waiverGlyph = map[results.WaiverState]string{
	results.WaiverApplied: "🔕", results.WaiverNotNeeded: "🧹", results.WaiverExpired: "⌛",
}

// writeWaiversMD lists the known deviations apart from the failures: the
// waived results with their reason and link, the waivers no longer needed
// and the expired ones.
func writeWaiversMD(p func(string, ...any), r *reportv1.Report) {
	section := func(st results.WaiverState, title, what string) {
		var uses []reportv1.WaiverUse
		for _, u := range r.Waivers {
			if u.State == st {
				uses = append(uses, u)
			}
		}
		if len(uses) == 0 {
			return
		}
		p("### %s %s\n\n%s\n\n", waiverGlyph[st], title, what)
		p("| waiver | case × model | reason | link | expires | results |\n|---|---|---|---|---|---|\n")
		for _, u := range uses {
			var rs []string
			for _, m := range u.Results {
				rs = append(rs, fmt.Sprintf("%s · `%s` · `%s` (%s)", markdown.Escape(m.Model), markdown.Code(m.Feature), markdown.Code(m.Case), m.Status))
			}
			p("| `%s` | `%s` × `%s` | %s | %s | %s | %s |\n", markdown.Code(u.Source), markdown.Code(u.Case), markdown.Code(u.Model),
				markdown.Escape(u.Reason), mdLink(u.Link), markdown.Escape(u.Expires), strings.Join(rs, "<br>"))
		}
		p("\n")
	}
	section(results.WaiverApplied, "Waived: known deviations", "Failures covered by a live entry of `--waivers`: they do not fail the run.")
	section(results.WaiverNotNeeded, "Waivers no longer needed", "The results these entries cover passed: the waiver can go.")
	section(results.WaiverExpired, "Expired waivers", "These entries have expired and no longer apply: the failures they covered count again.")
}

// writeRerunsMD lists the results `--rerun-failed` ran again, with what
// their first run said: a pass here is flaky, not fixed.
func writeRerunsMD(p func(string, ...any), r *reportv1.Report) {
	var again []results.Result
	for _, res := range r.Results {
		if res.Reruns > 0 {
			again = append(again, res)
		}
	}
	if len(again) == 0 {
		return
	}
	p("### 🔁 Re-run (`--rerun-failed`)\n\n| model | feature | case | first run | now | first reason |\n|---|---|---|---|---|---|\n")
	for _, res := range again {
		why := ""
		if len(res.FirstReasons) > 0 {
			why = res.FirstReasons[0].String()
		}
		now := string(res.Status)
		if res.Flaky && res.Status == vocab.StatusPass {
			now = "pass (flaky)"
		}
		p("| %s | `%s` | `%s` | %s | %s | %s |\n", markdown.Escape(res.Model), markdown.Code(res.Feature), markdown.Code(res.Case),
			markdown.Escape(string(res.FirstStatus)), now, markdown.Escape(results.Truncate(why, 200)))
	}
	p("\n")
}

// writeUncoveredMD lists the models the gateway lists that no case covers.
func writeUncoveredMD(p func(string, ...any), r *reportv1.Report) {
	if len(r.UncoveredModels) == 0 {
		return
	}
	p("### 🆕 Models no case covers\n\nThe gateway lists these models, but no case of the catalog names them: `gwconform probe` runs their family's cases and writes the YAML that adds them.\n\n")
	byKey := map[string][]string{}
	var keys []string
	for _, u := range r.UncoveredModels {
		if byKey[u.Key] == nil {
			keys = append(keys, u.Key)
		}
		byKey[u.Key] = append(byKey[u.Key], "`"+markdown.Code(u.Model)+"`")
	}
	for _, k := range keys {
		p("- %s key: %s\n", markdown.Escape(k), strings.Join(byKey[k], ", "))
	}
	p("\n")
}
