package execute

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
)

func pngBytes(t *testing.T, w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSummarize(t *testing.T) {
	img := pngBytes(t, 40, 30)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		name, ct, body string
		want           []string
		not            []string
	}{
		{"json with a data URL image", "application/json",
			`{"model":"m","images":[{"image_url":"` + dataURL + strings.Repeat("", 0) + `"}],"prompt":"` + long + `"}`,
			[]string{`"model":"m"`, "<png 40x30 sha256:", "xxxxxxxx…(300 bytes)"}, []string{"base64,"}},
		{"multipart with a file", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\nhi\r\n--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n" + string(img) + "\r\n--b--\r\n",
			[]string{"prompt=hi", "image=@a.png <png 40x30 sha256:"}, nil},
		{"not an image", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n\r\nhello\r\n--b--\r\n",
			[]string{"image=@a.png <5 bytes, not an image"}, nil},
		{"raw", "text/plain", "{not json", []string{"{not json"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &catalog.Rendered{Method: "POST", Path: "/v1/x", Header: http.Header{"Content-Type": {tc.ct}}, Body: []byte(tc.body)}
			s := requestSummary(r)
			assert.Equal(t, "POST", s.Method)
			for _, w := range tc.want {
				assert.Contains(t, s.Body, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, s.Body, n)
			}
			assert.LessOrEqual(t, len(s.Body), maxSummaryBody+40)
		})
	}
}
