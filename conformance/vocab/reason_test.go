package vocab

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b Reason
		same bool
	}{
		{Reason{Check: "status", Message: "HTTP status 404, want 2xx (spec 4.4/verified-models)"},
			Reason{Check: "status", Message: "HTTP status 400, want 2xx (spec 4.4/verified-models)"}, true},
		{Reason{Check: "image", Where: "data[0]", Message: "decoded size 512x512 differs from the requested size 1024x1024 (spec 2.2)"},
			Reason{Check: "image", Where: "data[1]", Message: "decoded size 1254x1254 differs from the requested size 1536x1024 (spec 2.2)"}, true},
		{Reason{Check: "sse", Message: `event data is not JSON (chat.not-json)`},
			Reason{Check: "sse", Message: `event data is not JSON (messages.not-json)`}, false},
		{Reason{Check: "json", Message: `model "gen-5" is not the model requested (spec 2.3, 2.4)`},
			Reason{Check: "json", Message: `model "msg-opus-5" is not the model requested (spec 2.3, 2.4)`}, true},
		{Reason{Check: "json", Message: "x (spec 2.3)"}, Reason{Check: "json", Message: "x (spec 2.4)"}, false},
		{Reason{Check: "schema", Message: "x"}, Reason{Check: "json", Message: "x"}, false},
	} {
		assert.Equal(t, tc.same, tc.a.Cause() == tc.b.Cause(), "%q vs %q", tc.a.Cause(), tc.b.Cause())
	}
	assert.Equal(t, "image: decoded size NxN differs from the requested size NxN (spec 2.2)",
		Reason{Check: "image", Message: "decoded size 512x512 differs from the requested size 1024x1024 (spec 2.2)"}.Cause())
}
