package check

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Issue 34: where 4.5 and 8 verified n, a count of images other than n
// fails citing them, not 6.1's stream sentence; beyond the verified n (an
// explore case, a request the judge explores) the count is a finding of
// the capability map, since 2.2 has the client iterate the array actually
// returned.
func TestImageCount(t *testing.T) {
	images := func(k int) []byte {
		return []byte(`{"data":[` + strings.TrimSuffix(strings.Repeat(`{},`, k), ",") + `]}`)
	}
	edit := func(n any) *catalog.Request {
		body := map[string]any{"prompt": "x"}
		if n != nil {
			body["n"] = n
		}
		return &catalog.Request{Path: "/v1/images/edits", JSON: body}
	}
	for _, tc := range []struct {
		name     string
		request  *catalog.Request
		explore  bool
		returned int
		says     []string // what the count's reason holds; nil: no count reason
	}{
		{"verified n 2, one image", edit(uint64(2)), false, 1, []string{"the number of images differs from n (spec 4.5/n, 8/n: 1 and 2 verified for the 2.5 models, 1 for gen-image-2)"}},
		{"n omitted, two images", edit(nil), false, 2, []string{"(spec 4.5/n-default, 8/n: n defaults to 1)"}},
		{"generation, two images", &catalog.Request{Path: "/v1/images/generations", JSON: map[string]any{"prompt": "x"}}, false, 2, []string{"(spec 4.4/n-default, 8/n"}},
		{"verified n 2, two images", edit(uint64(2)), false, 2, nil},
		{"n 3 explored, two images", edit(uint64(3)), true, 2, []string{"beyond what the verified rows owe", "2.2/data: the client iterates the array actually returned", "capability map"}},
		{"n 3 explored, three images", edit(uint64(3)), true, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &checker{request: tc.request, explore: tc.explore}
			c.checkImageResult(images(tc.returned), ExpectedImages(nil, tc.request), false)
			var count []vocab.Reason
			for _, r := range c.reasons {
				if r.Where == "data" {
					count = append(count, r)
				}
			}
			if tc.says == nil {
				assert.Empty(t, count)
				return
			}
			require.Len(t, count, 1, "%v", c.reasons)
			for _, s := range tc.says {
				assert.Contains(t, count[0].Message, s)
			}
			assert.NotContains(t, count[0].Message, "fixes the number", "6.1's stream sentence is not the JSON result's")
		})
	}
}
