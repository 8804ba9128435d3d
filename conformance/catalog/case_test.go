package catalog

import (
	"testing"

	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/stretchr/testify/assert"
)

// The spec shows success, not its code: outside the strict tier any 2xx
// is the success a case expects; strict wants the status exactly.
func TestCaseAccepts(t *testing.T) {
	refused := &StatusSet{Classes: []string{"4xx"}, Except: []int{408, 429}}
	servesNoImage := &StatusSet{Classes: []string{"4xx", "5xx"}, Except: []int{408, 429}}
	for _, tc := range []struct {
		name     string
		tier     vocab.Tier
		expect   Expect
		accepted []int
		refused  []int
		want     string
	}{
		{"verified success", vocab.TierVerified, Expect{Status: 200}, []int{200, 201, 203, 299}, []int{199, 301, 400, 500}, "2xx"},
		{"explore success", vocab.TierExplore, Expect{Status: 200}, []int{200, 201}, []int{400}, "2xx"},
		{"strict success", vocab.TierStrict, Expect{Status: 200}, []int{200}, []int{201, 203, 400}, "200"},
		{"negative exact", vocab.TierNegative, Expect{Status: 400}, []int{400}, []int{200, 401, 404}, "400"},
		{"strict refusal", vocab.TierStrict, Expect{Status: 404}, []int{404}, []int{200, 400}, "404"},
		{"refusal class", vocab.TierNegative, Expect{StatusIn: refused}, []int{400, 403, 404}, []int{200, 408, 429, 500}, "any 4xx except [408 429]"},
		{"refusal classes", vocab.TierNegative, Expect{StatusIn: servesNoImage}, []int{400, 403, 404, 500, 501, 529}, []int{200, 302, 408, 429}, "any 4xx or 5xx except [408 429]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Case{Tier: tc.tier, Expect: tc.expect}
			for _, code := range tc.accepted {
				assert.True(t, c.Accepts(code), "%d", code)
			}
			for _, code := range tc.refused {
				assert.False(t, c.Accepts(code), "%d", code)
			}
			assert.Equal(t, tc.want, c.WantStatus())
		})
	}
}
