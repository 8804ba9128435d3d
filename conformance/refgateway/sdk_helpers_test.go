package refgateway_test

import (
	"bytes"
	"encoding/base64"
	"flag"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/webp"

	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
)

// The SDK tests drive the gateway with the official OpenAI and Anthropic Go
// SDKs exactly as an application would: the SDK builds the request, parses
// the response or the event stream, and the test only looks at what the SDK
// hands back (plus the decoded images).

var sdkKeys = refgateway.DefaultKeys()

// sdkBaseURL points the SDK tests at a running server instead of a gateway
// of their own: a recording relay in front of a gateway, or a stand-in
// answering from a recording (gwconform serve --upstream, --replay). The
// server must know the default keys.
var sdkBaseURL = flag.String("sdk.base-url", "", "run the SDK tests against this base URL (a relay or a replay of a recording) instead of an in-process gateway")

// sdkTarget is where the SDK clients send their requests.
type sdkTarget struct {
	URL    string
	client *http.Client
}

// Client is the HTTP client for the target.
func (s sdkTarget) Client() *http.Client { return s.client }

// sdkServer starts a gateway with the default configuration on a loopback
// httptest server, closed when the test ends; or, with -sdk.base-url, uses
// that server.
func sdkServer(t *testing.T) sdkTarget {
	t.Helper()
	if *sdkBaseURL != "" {
		return sdkTarget{URL: strings.TrimRight(*sdkBaseURL, "/"), client: &http.Client{}}
	}
	g, err := refgateway.New(refgateway.Config{})
	require.NoError(t, err)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return sdkTarget{URL: srv.URL, client: srv.Client()}
}

// newOpenAI is an OpenAI client for srv. The OpenAI SDK's base URL includes
// the version segment (its default is https://api.openai.com/v1/), so paths
// resolve to /v1/chat/completions and so on. Retries are off so a failure
// shows at once. The explicit options come after the SDK's environment
// defaults (OPENAI_BASE_URL, OPENAI_API_KEY) and so override them.
func newOpenAI(srv sdkTarget, key string) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(srv.URL+"/v1/"),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
		option.WithHTTPClient(srv.Client()),
	)
}

// newAnthropic is an Anthropic client for srv. The Anthropic SDK's base URL
// has no version segment (its default is https://api.anthropic.com/; paths are
// v1/messages, v1/models). WithAPIKey sends the key as x-api-key, the SDK's
// default authentication; an explicit credential option also stops the SDK
// from looking for credentials in the environment or a profile.
func newAnthropic(srv sdkTarget, key string, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{
		aoption.WithBaseURL(srv.URL + "/"),
		aoption.WithAPIKey(key),
		aoption.WithMaxRetries(0),
		aoption.WithHTTPClient(srv.Client()),
	}, opts...)...)
}

// fixture reads an embedded fixture image.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fixtures.FS, name)
	require.NoError(t, err)
	return b
}

// pngOf encodes img as PNG.
func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// testPicture draws an opaque w×h picture: a horizontal gradient with a dark
// diagonal, so it is not a flat colour.
func testPicture(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: uint8(255 * x / max(w-1, 1)), G: uint8(255 * y / max(h-1, 1)), B: 160, A: 255}
			if x*h/w == y {
				c = color.NRGBA{A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// testMask draws a w×h mask: opaque black with a fully transparent rectangle
// in the middle (the region to edit).
func testMask(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := uint8(255)
			if x >= w/4 && x < 3*w/4 && y >= h/4 && y < 3*h/4 {
				a = 0
			}
			img.SetNRGBA(x, y, color.NRGBA{A: a})
		}
	}
	return img
}

// decoded is an image the gateway returned, decoded.
type decoded struct {
	img    image.Image
	format string // png, jpeg, webp: from the magic bytes, confirmed by the decoder
	raw    []byte
}

// decodeB64 decodes a b64_json image, checks that its bytes are of the wanted
// format (magic bytes, then the format's own decoder) and that it is w×h.
func decodeB64(t *testing.T, b64, wantFormat string, w, h int) decoded {
	t.Helper()
	require.NotEmpty(t, b64, "b64_json is empty")
	raw, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err, "b64_json is not standard base64")
	d := decoded{raw: raw, format: sniff(raw)}
	require.Equal(t, wantFormat, d.format, "image bytes are not %s (first bytes % x)", wantFormat, raw[:min(len(raw), 16)])
	switch wantFormat {
	case "png":
		d.img, err = png.Decode(bytes.NewReader(raw))
	case "jpeg":
		d.img, err = jpeg.Decode(bytes.NewReader(raw))
	case "webp":
		d.img, err = webp.Decode(bytes.NewReader(raw))
	default:
		t.Fatalf("unknown format %q", wantFormat)
	}
	require.NoError(t, err, "%s image does not decode", wantFormat)
	require.Equal(t, image.Rect(0, 0, w, h), d.img.Bounds(), "image size")
	return d
}

// sniff names the format of encoded image bytes by their signature.
func sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "webp"
	}
	return "unknown"
}

// alphaCounts counts fully transparent and fully opaque pixels.
func alphaCounts(img image.Image) (transparent, opaque int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			_, _, _, a := img.At(x, y).RGBA()
			switch a {
			case 0:
				transparent++
			case 0xffff:
				opaque++
			}
		}
	}
	return transparent, opaque
}

// assertOpaque checks that every pixel of img is fully opaque.
func assertOpaque(t *testing.T, img image.Image) {
	t.Helper()
	tr, op := alphaCounts(img)
	b := img.Bounds()
	assert.Zero(t, tr, "transparent pixels in an opaque image")
	assert.Equal(t, b.Dx()*b.Dy(), op, "not every pixel is opaque")
}

// assertNotFlat checks that img is a picture, not a single colour.
func assertNotFlat(t *testing.T, img image.Image) {
	t.Helper()
	b := img.Bounds()
	first := color.NRGBAModel.Convert(img.At(b.Min.X, b.Min.Y))
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			if color.NRGBAModel.Convert(img.At(x, y)) != first {
				return
			}
		}
	}
	t.Errorf("image is a single flat colour %v", first)
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// generationID reads data[].generation_id, a field the OpenAI SDK does not
// model, from the SDK's record of extra fields.
func generationID(t *testing.T, img openai.Image) string {
	t.Helper()
	f, ok := img.JSON.ExtraFields["generation_id"]
	require.True(t, ok, "data[] has no generation_id; raw: %.200s", img.RawJSON())
	var id string
	raw := f.Raw()
	require.True(t, strings.HasPrefix(raw, `"`), "generation_id is not a string: %s", raw)
	id = strings.Trim(raw, `"`)
	return id
}

// jsonField is the SDKs' record of one response field (respjson.Field of
// either SDK): presence and the raw JSON. The SDKs decode leniently (a number
// sent for a string field still lands in the struct as "7", and the record
// still says valid), so the wire type is checked on the raw text.
type jsonField interface {
	Valid() bool
	Raw() string
}

// assertPresent checks that each named field was on the wire and not null.
func assertPresent(t *testing.T, fields map[string]jsonField) {
	t.Helper()
	for name, f := range fields {
		assert.True(t, f.Valid(), "field %s is missing or null: %q", name, f.Raw())
	}
}

// assertStrings checks that each named field was on the wire as a JSON string.
func assertStrings(t *testing.T, fields map[string]jsonField) {
	t.Helper()
	for name, f := range fields {
		raw := strings.TrimSpace(f.Raw())
		assert.True(t, f.Valid() && strings.HasPrefix(raw, `"`), "field %s is not a string on the wire: %q", name, raw)
	}
}

// assertInts checks that each named field was on the wire as a JSON integer.
func assertInts(t *testing.T, fields map[string]jsonField) {
	t.Helper()
	for name, f := range fields {
		raw := strings.TrimSpace(f.Raw())
		_, err := strconv.ParseInt(raw, 10, 64)
		assert.True(t, f.Valid() && err == nil, "field %s is not an integer on the wire: %q", name, raw)
	}
}

// words counts the white-space separated words of s.
func words(s string) int { return len(strings.Fields(s)) }

// textOf joins the text of a message's text blocks (spec 2.4).
func textOf(m *anthropic.Message) string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}
