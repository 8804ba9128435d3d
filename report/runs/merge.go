package runs

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// Merge joins the results of shards, or of runs of one gateway, into one
// set. A case × model present in more than one input is kept once when the
// copies are identical (a shard re-uploaded, or the same file passed twice).
// A skip yields to a result that ran: runs made with different keys, offers
// or budgets each skip what the other ran (two skips: the first is kept).
// Two different results that ran are an error: the inputs overlapped, and
// picking one would hide it. The output is sorted by feature, case, model,
// so merging is independent of the order of the inputs.
func Merge(reports ...[]results.Result) ([]results.Result, error) {
	type entry struct {
		r   results.Result
		enc []byte
		src int
	}
	byKey := map[results.CaseModel]entry{}
	for i, rs := range reports {
		for _, r := range rs {
			if r.Reasons == nil {
				// results.Writer writes [] for nil; treat both alike so a
				// result read back compares equal to the one in memory.
				r.Reasons = []vocab.Reason{}
			}
			enc, err := json.Marshal(r)
			if err != nil {
				return nil, fmt.Errorf("input %d: %s/%s: %w", i+1, r.Model, r.Case, err)
			}
			k := r.CaseModel()
			prev, ok := byKey[k]
			switch {
			case !ok:
			case bytes.Equal(prev.enc, enc), r.Status == vocab.StatusSkip:
				continue
			case prev.r.Status != vocab.StatusSkip && prev.r.Status == r.Status:
				return nil, fmt.Errorf("case %q × model %q ran in inputs %d and %d, both %s (started %s and %s): they are two runs of it, not shards of one or runs of different cases",
					r.Case, r.Model, prev.src+1, i+1, r.Status, prev.r.Started.Format(time.RFC3339), r.Started.Format(time.RFC3339))
			case prev.r.Status != vocab.StatusSkip:
				return nil, fmt.Errorf("case %q × model %q ran in inputs %d and %d with different verdicts (%s, then %s): overlapping shards?",
					r.Case, r.Model, prev.src+1, i+1, prev.r.Status, r.Status)
			}
			byKey[k] = entry{r: r, enc: enc, src: i}
		}
	}
	out := make([]results.Result, 0, len(byKey))
	for _, e := range byKey {
		out = append(out, e.r)
	}
	slices.SortFunc(out, func(a, b results.Result) int {
		return cmp.Or(cmp.Compare(a.Feature, b.Feature), cmp.Compare(a.Case, b.Case), cmp.Compare(a.Model, b.Model))
	})
	return out, nil
}

// MergeModelMaps joins the model maps of the inputs' reports, in spec id
// order: shards share one, runs of one gateway made with different keys
// each hold their keys' models. Two inputs that sent a spec model under
// different ids are refused, naming both: their results would sit in one
// cell while the gateway served two models. A record that names no id
// (unlisted, ambiguous: nothing sent) yields to one that does, as a skip
// yields to a result that ran; else the first input's record is kept.
func MergeModelMaps(reps []NamedReport) ([]reportv1.ModelName, error) {
	byspec, from := map[string]reportv1.ModelName{}, map[string]string{}
	for _, r := range reps {
		for _, n := range r.Report.Metadata.ModelMap {
			prev, ok := byspec[n.Spec]
			switch {
			case ok && prev.Gateway != "" && n.Gateway != "" && prev.Gateway != n.Gateway:
				return nil, fmt.Errorf("%s sent %s as %s, %s sent it as %s: runs merged name each model alike (--model-map %s=ID on both)",
					from[n.Spec], n.Spec, prev.Gateway, r.Name, n.Gateway, n.Spec)
			case ok && (prev.Gateway != "" || n.Gateway == ""):
				continue
			}
			byspec[n.Spec], from[n.Spec] = n, r.Name
		}
	}
	out := make([]reportv1.ModelName, 0, len(byspec))
	for _, spec := range slices.Sorted(maps.Keys(byspec)) {
		out = append(out, byspec[spec])
	}
	return out, nil
}
