package imagecheck

import (
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzInspect seeds")

// fuzzCap keeps the fuzzer's memory small: the cap logic is the same as
// Inspect's, only the number differs, and a 64-megapixel decode per input
// would make fuzzing crawl.
const fuzzCap = 1 << 20

// FuzzInspect feeds arbitrary bytes to the inspector: it must never panic,
// must refuse over-cap headers, and a success must be self-consistent.
// Seeds (small valid images of each format, truncations, hostile headers)
// live in testdata/fuzz/FuzzInspect; regenerate with
// go test ./imagecheck -run TestFuzzSeeds -update-seeds.
func FuzzInspect(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		info, img, err := inspect(b, fuzzCap)
		if info.Bytes != len(b) || len(info.SHA256) != 64 || info.Format != Sniff(b) {
			t.Fatalf("inconsistent info %+v", info)
		}
		if err != nil {
			if img != nil || info.Decoded != "" {
				t.Fatalf("error %v with image or Decoded %q", err, info.Decoded)
			}
			return
		}
		r := img.Bounds()
		if info.Decoded != info.Format || info.Width != r.Dx() || info.Height != r.Dy() {
			t.Fatalf("info %+v does not match image %v", info, r)
		}
		if info.Width*info.Height > fuzzCap {
			t.Fatalf("decoded %dx%d above the cap", info.Width, info.Height)
		}
		if info.Transparent && !info.Alpha {
			t.Fatal("transparent without alpha")
		}
		if Thumbnail(img, 16) == "" {
			t.Fatal("no thumbnail for a decoded image")
		}
	})
}

func fuzzSeeds(t testing.TB) map[string][]byte {
	tiny := picture(6, 4, true, true)
	opaque := picture(6, 4, false, false)
	p := encPNG(t, tiny)
	j := encJPEG(t, opaque)
	w := encWebPLossless(t, tiny)
	return map[string][]byte{
		"png-alpha":        p,
		"png-opaque":       encPNG(t, opaque),
		"png-truncated":    p[:len(p)/2],
		"jpeg":             j,
		"jpeg-truncated":   j[:len(j)*3/4],
		"webp-lossless":    w,
		"webp-lossy-alpha": encWebPLossy(t, tiny),
		"webp-truncated":   w[:len(w)/2],
		"gif":              encGIF(t, opaque),
		"png-huge":         hugePNG(100000, 100000),
		"jpeg-huge":        hugeJPEG(65535, 65535, true),
		"webp-huge":        hugeWebP(16384, 16384),
		"gif-huge":         hugeGIF(65535, 65535),
		"text":             []byte("not an image"),
	}
}

// TestFuzzSeeds keeps the checked-in corpus in step with the encoders above
// (only with -update-seeds) and otherwise checks every seed file exists.
func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzInspect")
	for name, b := range fuzzSeeds(t) {
		path := filepath.Join(dir, name)
		if *updateSeeds {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
			require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			continue
		}
		_, err := os.Stat(path)
		require.NoError(t, err, "missing seed; run with -update-seeds")
	}
}

// FuzzDecodeBase64: whatever is accepted is canonical standard base64 of
// the result, apart from surrounding whitespace.
func FuzzDecodeBase64(f *testing.F) {
	for _, s := range []string{"", "AAAA", " QUJD\n", "QUI=", "QUI", "QU-_", "data:image/png;base64,AAAA", "QU\nJD", "AB=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeBase64(s)
		if err != nil {
			return
		}
		if got := base64.StdEncoding.EncodeToString(b); got != strings.TrimSpace(s) {
			t.Fatalf("accepted %q, canonical form %q", s, got)
		}
	})
}

// FuzzParseSize: whatever is accepted prints back to the same string.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1024x1024", "1x1", "auto", "0x1", "+1x1", "1x", "01x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, h, err := ParseSize(s)
		if err != nil {
			return
		}
		if w <= 0 || h <= 0 || fmt.Sprintf("%dx%d", w, h) != s {
			t.Fatalf("accepted %q as %dx%d", s, w, h)
		}
	})
}
