package execute

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"image"
	_ "image/jpeg" // decoders for describeImage
	_ "image/png"

	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"strings"

	_ "golang.org/x/image/webp"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
)

// maxSummaryBody bounds the request body kept in a result.
const maxSummaryBody = 2048

// requestSummary describes the sent request for reports: headers are left out
// (they carry the key), long strings such as images in data URLs are
// replaced by their length, and the body is truncated.
func requestSummary(r *catalog.Rendered) *results.Request {
	s := &results.Request{Method: r.Method, Path: r.Path}
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "application/json":
		var v any
		if json.Unmarshal(r.Body, &v) == nil {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // keep "<png 1024x1024 …>" readable; reports escape on output
			enc.Encode(shorten(v))
			s.Body = strings.TrimSuffix(b.String(), "\n")
		} else {
			s.Body = string(r.Body)
		}
	case mt == "multipart/form-data":
		s.Body = summarizeMultipart(r.Body, params["boundary"])
	default:
		s.Body = string(r.Body)
	}
	s.Body = results.Truncate(s.Body, maxSummaryBody)
	return s
}

// shorten replaces long strings in a JSON value: a data: URL of an image by
// a description of the image, anything else by its start and length.
func shorten(v any) any {
	switch t := v.(type) {
	case string:
		if meta, data, ok := strings.Cut(t, ","); ok && strings.HasPrefix(meta, "data:") && strings.HasSuffix(meta, ";base64") {
			if b, err := base64.StdEncoding.DecodeString(data); err == nil {
				return describeImage(b)
			}
		}
		if len(t) <= 200 {
			return t
		}
		return fmt.Sprintf("%s…(%d bytes)", t[:40], len(t))
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

// describeImage stands for an image in a request summary: format and
// dimensions from its header (no full decode), and a hash to tell inputs
// apart, e.g. "<png 1024x1024 sha256:9f2c41d0ab12>".
func describeImage(b []byte) string {
	sum := sha256.Sum256(b)
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return fmt.Sprintf("<%d bytes, not an image, sha256:%x>", len(b), sum[:6])
	}
	return fmt.Sprintf("<%s %dx%d sha256:%x>", format, cfg.Width, cfg.Height, sum[:6])
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
		buf.ReadFrom(p)
		if p.FileName() != "" {
			parts = append(parts, fmt.Sprintf("%s=@%s %s", p.FormName(), p.FileName(), describeImage(buf.Bytes())))
		} else {
			parts = append(parts, fmt.Sprintf("%s=%s", p.FormName(), results.Truncate(buf.String(), 200)))
		}
	}
	return "multipart: " + strings.Join(parts, "; ")
}
