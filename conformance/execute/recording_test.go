package execute

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRequestID(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"OpenAI", http.Header{"X-Request-Id": {"req_1"}}, "req_1"},
		{"Anthropic", http.Header{"Request-Id": {"req_2"}}, "req_2"},
		{"x-request-id first", http.Header{"Request-Id": {"req_2"}, "X-Request-Id": {"req_1"}}, "req_1"},
		{"Azure", http.Header{"Apim-Request-Id": {"a-3"}}, "a-3"},
		{"a CDN's ray as the last resort", http.Header{"Cf-Ray": {"8f1-AMS"}}, "8f1-AMS"},
		{"none", http.Header{"Content-Type": {"application/json"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, requestID(tt.header))
		})
	}
}
