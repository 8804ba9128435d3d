package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"strings"

	"github.com/gwconform/gwconform/catalog"
	"github.com/gwconform/gwconform/results"
)

// maxSummaryBody bounds the request body kept in a result.
const maxSummaryBody = 2048

// summarize describes the sent request for reports: headers are left out
// (they carry the key), long strings such as images in data URLs are
// replaced by their length, and the body is truncated.
func summarize(r *catalog.Rendered) *results.Request {
	s := &results.Request{Method: r.Method, Path: r.Path}
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "application/json":
		var v any
		if json.Unmarshal(r.Body, &v) == nil {
			b, _ := json.Marshal(shorten(v))
			s.Body = string(b)
		} else {
			s.Body = string(r.Body)
		}
	case mt == "multipart/form-data":
		s.Body = summarizeMultipart(r.Body, params["boundary"])
	default:
		s.Body = string(r.Body)
	}
	s.Body = truncate(s.Body, maxSummaryBody)
	return s
}

// shorten replaces long strings (base64 images) in a JSON value.
func shorten(v any) any {
	switch t := v.(type) {
	case string:
		if len(t) > 200 {
			prefix := t[:40]
			if i := strings.Index(t, ","); strings.HasPrefix(t, "data:") && i > 0 && i < 80 {
				prefix = t[:i+1]
			}
			return fmt.Sprintf("%s…(%d bytes)", prefix, len(t))
		}
		return t
	case []any:
		for i := range t {
			t[i] = shorten(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = shorten(t[k])
		}
		return t
	}
	return v
}

func summarizeMultipart(body []byte, boundary string) string {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var parts []string
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		var buf bytes.Buffer
		n, _ := buf.ReadFrom(p)
		if p.FileName() != "" {
			parts = append(parts, fmt.Sprintf("%s=@%s(%d bytes)", p.FormName(), p.FileName(), n))
		} else {
			parts = append(parts, fmt.Sprintf("%s=%s", p.FormName(), truncate(buf.String(), 200)))
		}
	}
	return "multipart: " + strings.Join(parts, "; ")
}
