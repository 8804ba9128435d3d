package vocab

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A cause is what the gateway did: one defect met by many cases, through
// many checks and cited rows, is one cause; two statuses are two.
func TestCause(t *testing.T) {
	t.Parallel()
	routeMissing := `{"error":{"message":"Route not found"}}`
	for _, tc := range []struct {
		a, b Reason
		same bool
	}{
		{Reason{Check: "status", Expected: "2xx", Actual: "404 " + routeMissing, Message: "HTTP status 404, want 2xx (spec 4.4/verified-models)"},
			Reason{Check: "status", Expected: "400", Actual: "404 " + routeMissing, Message: "HTTP status 404, want 400 (spec 4.5/rule-1, 7/edit-no-image)"}, true},
		{Reason{Check: "status", Expected: "2xx", Actual: "404 " + routeMissing, Message: "HTTP status 404, want 2xx (spec 4.4/verified-models)"},
			Reason{Check: "status", Expected: "2xx", Actual: "500 " + routeMissing, Message: "HTTP status 500, want 2xx (spec 4.4/verified-models)"}, false},
		{Reason{Check: "status", Actual: `400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 12 > 10"}}`},
			Reason{Check: "status", Actual: `400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 4096 > 1024"}}`}, true},
		{Reason{Check: "status", Actual: `500 {"error":{"message":"request req_8f3a9c2e5b1d failed"}}`},
			Reason{Check: "status", Actual: `500 {"error":{"message":"request req_0b1d4086aa11 failed"}}`}, true},
		{Reason{Check: "image", Where: "data[0]", Message: "decoded size 512x512 differs from the requested size 1024x1024 (spec 2.2)"},
			Reason{Check: "image", Where: "data[1]", Message: "decoded size 1254x1254 differs from the requested size 1536x1024 (spec 2.2)"}, true},
		{Reason{Check: "image", Message: "image does not decode (png: invalid format: not a PNG file)"},
			Reason{Check: "image", Message: "image does not decode (webp: invalid format)"}, true},
		{Reason{Check: "sse", Message: `event data is not JSON (chat.not-json)`},
			Reason{Check: "sse", Message: `event data is not JSON (messages.not-json)`}, true},
		{Reason{Check: "json", Message: `model "gen-5" is not the model requested (spec 2.3, 2.4)`},
			Reason{Check: "json", Message: `model "msg-opus-5" is not the model requested (spec 2.3, 2.4)`}, true},
		{Reason{Check: "json", Message: "x (spec 2.3)"}, Reason{Check: "json", Message: "x (spec 2.4)"}, true},
		{Reason{Check: "schema", Message: "x"}, Reason{Check: "json", Message: "x"}, false},
	} {
		assert.Equal(t, tc.same, tc.a.Cause() == tc.b.Cause(), "%q vs %q", tc.a.Cause(), tc.b.Cause())
	}
	assert.Equal(t, "HTTP 404: Route not found", Reason{Check: "status", Actual: "404 " + routeMissing}.Cause())
	assert.Equal(t, "HTTP 400: model … does not exist", Reason{Check: "status", Actual: `400 {"type":"error","error":{"type":"invalid_request_error","message":"model \"gen-5.5\" does not exist"}}`}.Cause())
	assert.Equal(t, "HTTP 400: invalid_request_error", Reason{Check: "status", Actual: `400 {"error":{"type":"invalid_request_error"}}`}.Cause())
	assert.Equal(t, "HTTP 502", Reason{Check: "status", Actual: "502"}.Cause())
	assert.Equal(t, "image: decoded size NxN differs from the requested size NxN",
		Reason{Check: "image", Message: "decoded size 512x512 differs from the requested size 1024x1024 (spec 2.2)"}.Cause())
}
