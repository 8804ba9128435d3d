package report

import (
	"fmt"
	"slices"

	"github.com/gwconform/gwconform/conformance/redact"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// modelMap is the model map as report.json keeps it: a copy, what a
// key's list answered redacted as a reason is (a transport error may
// quote the URL it called).
func modelMap(names []reportv1.ModelName) []reportv1.ModelName {
	out := slices.Clone(names)
	for i := range out {
		out[i].Candidates = slices.Clone(out[i].Candidates)
		out[i].Why = redact.Credentials(out[i].Why)
	}
	return out
}

// ModelNameNotes are the notes the model map calls for, for the report's
// headline and the console's: each given name its key's list lacks (sent
// anyway: a list does not prove what is served, nor its absence what is
// not). A list that could not be read is said by the verdict, once per
// key, beside the cases it left unchecked (results.Judge).
func ModelNameNotes(names []reportv1.ModelName) []string {
	var notes []string
	for _, n := range names {
		if n.Source == reportv1.NameGiven && n.Unlisted {
			notes = append(notes, fmt.Sprintf("%s (given for %s with --model-map) is not in the %s key's list: sent anyway (spec 1: a list does not prove what is served)", n.Gateway, n.Spec, n.Key))
		}
	}
	return notes
}
