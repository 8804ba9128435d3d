package imagery

import (
	"bytes"
	"fmt"
	"testing"

	lossywebp "github.com/deepteams/webp"
)

func BenchmarkZZLossyOptions(b *testing.B) {
	img := Render(Scene{Prompt: "benchmark", Seed: 1, Width: 1024, Height: 1024, Transparent: true, Preview: -1})
	for _, m := range []int{0, 1, 2, 4} {
		for _, fast := range []bool{false, true} {
			b.Run(fmt.Sprintf("m%d/fast=%v", m, fast), func(b *testing.B) {
				var n int
				for b.Loop() {
					o := lossywebp.DefaultOptions()
					o.Quality = 50
					o.Method = m
					if fast {
						o.Segments = 1
						o.AlphaFiltering = 0
						o.SNSStrength = 0
					}
					var buf bytes.Buffer
					if err := lossywebp.Encode(&buf, img, o); err != nil {
						b.Fatal(err)
					}
					n = buf.Len()
				}
				b.ReportMetric(float64(n), "bytes/img")
			})
		}
	}
}
