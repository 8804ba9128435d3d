package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/vocab"
)

func TestEstimateCost(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  catalog.Request
		want Cost
	}{
		{"text call", catalog.Request{Path: "/v1/chat/completions"}, Cost{Units: 1}},
		{"1024 high", catalog.Request{Path: "/v1/images/generations", JSON: map[string]any{"size": "1024x1024", "quality": "high"}}, Cost{Units: 10, Images: 1}},
		{"default size is 1254x1254", catalog.Request{Path: "/v1/images/generations", JSON: map[string]any{"quality": "high"}},
			Cost{Units: 10 * 1254 * 1254 / (1024.0 * 1024), Images: 1}},
		{"n=2 low", catalog.Request{Path: "/v1/images/edits", JSON: map[string]any{"size": "1024x1024", "quality": "low", "n": 2}}, Cost{Units: 5, Images: 2}},
		{"multipart stream with previews", catalog.Request{Path: "/v1/images/edits", Multipart: []catalog.FormField{
			{Name: "size", Value: "1024x1024"}, {Name: "image", File: "ref-a-1024.png"}, {Name: "stream", Value: "true"}, {Name: "partial_images", Value: "2"}}},
			Cost{Units: 10 + 2*10*0.2, Images: 1, Previews: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := EstimateCost(&catalog.Case{Request: tc.req})
			assert.InDelta(t, tc.want.Units, got.Units, 1e-9)
			assert.Equal(t, tc.want.Images, got.Images)
			assert.Equal(t, tc.want.Previews, got.Previews)
		})
	}
}

func TestBudgetApply(t *testing.T) {
	img := &catalog.Case{Request: catalog.Request{Path: "/v1/images/generations", JSON: map[string]any{"size": "1024x1024", "quality": "high"}}}
	text := &catalog.Case{Request: catalog.Request{Path: "/v1/chat/completions"}}
	missing := &vocab.Reason{Check: vocab.CheckKeyMissing, Message: "no image key"}
	skips := func(calls []Call) []string {
		var out []string
		for _, c := range calls {
			if c.Skip == nil {
				out = append(out, "run")
			} else {
				out = append(out, c.Skip.Check)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		budget Budget
		calls  []Call
		want   []string
	}{
		{"no cap", Budget{}, []Call{{Case: img}, {Case: text}}, []string{"run", "run"}},
		{"a cheaper call later still fits", Budget{Cost: 11}, []Call{{Case: img}, {Case: img}, {Case: text}, {Case: text}},
			[]string{"run", vocab.CheckBudget, "run", vocab.CheckBudget}},
		{"an exact fit is made", Budget{Cost: 20}, []Call{{Case: img}, {Case: img}}, []string{"run", "run"}},
		{"a skipped call spends nothing", Budget{Cost: 10}, []Call{{Case: img, Skip: missing}, {Case: img}}, []string{vocab.CheckKeyMissing, "run"}},
		{"calls and cost together", Budget{Calls: 2, Cost: 100}, []Call{{Case: text}, {Case: text}, {Case: text}}, []string{"run", "run", vocab.CheckBudget}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.budget.Apply(tc.calls)
			assert.Equal(t, tc.want, skips(tc.calls))
		})
	}
}
