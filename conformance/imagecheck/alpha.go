package imagecheck

import "image"

// scanAlpha reports whether any pixel is not fully opaque (alpha) and
// whether any is fully transparent (transparent). The concrete types the
// decoders return are scanned on their raw buffers: going through At() and
// color.Color for a 1536x1024 image costs an interface call and an
// allocation per pixel. It stops as soon as both answers are known.
func scanAlpha(img image.Image) (alpha, transparent bool) {
	r := img.Bounds()
	if r.Empty() {
		return false, false
	}
	switch m := img.(type) {
	case *image.YCbCr, *image.Gray, *image.Gray16, *image.CMYK:
		return false, false // no alpha channel at all
	case *image.NRGBA:
		return scan8(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 4, 3)
	case *image.RGBA:
		return scan8(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 4, 3)
	case *image.Alpha:
		return scan8(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 1, 0)
	case *image.NYCbCrA:
		return scan8(m.A, m.AStride, m.AOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 1, 0)
	case *image.NRGBA64:
		return scan16(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 8, 6)
	case *image.RGBA64:
		return scan16(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 8, 6)
	case *image.Alpha16:
		return scan16(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 2, 0)
	case *image.Paletted:
		return scanPaletted(m)
	}
	return scanGeneric(img)
}

// scan8 walks an 8-bit alpha sample at byte aoff of each bpp-byte pixel.
func scan8(pix []byte, stride, start, w, h, bpp, aoff int) (alpha, transparent bool) {
	for y := 0; y < h; y++ {
		row := pix[start+y*stride : start+y*stride+w*bpp]
		for i := aoff; i < len(row); i += bpp {
			if a := row[i]; a != 0xFF {
				alpha = true
				if a == 0 {
					transparent = true
					return // transparent implies alpha: both known
				}
			}
		}
	}
	return
}

// scan16 is scan8 for big-endian 16-bit alpha samples.
func scan16(pix []byte, stride, start, w, h, bpp, aoff int) (alpha, transparent bool) {
	for y := 0; y < h; y++ {
		row := pix[start+y*stride : start+y*stride+w*bpp]
		for i := aoff; i+1 < len(row); i += bpp {
			hi, lo := row[i], row[i+1]
			if hi != 0xFF || lo != 0xFF {
				alpha = true
				if hi == 0 && lo == 0 {
					transparent = true
					return
				}
			}
		}
	}
	return
}

// scanPaletted looks at the palette entries actually used: a PNG may carry
// a transparent entry (tRNS) that no pixel refers to, which is not real
// transparency.
func scanPaletted(m *image.Paletted) (alpha, transparent bool) {
	var partial, clear [256]bool
	some := false
	for i, c := range m.Palette {
		if i >= 256 {
			break
		}
		if c == nil {
			continue
		}
		_, _, _, a := c.RGBA()
		partial[i] = a != 0xFFFF
		clear[i] = a == 0
		some = some || partial[i]
	}
	if !some {
		return false, false
	}
	r := m.Bounds()
	w := r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		off := m.PixOffset(r.Min.X, y)
		for _, idx := range m.Pix[off : off+w] {
			// An index beyond the palette has no colour; the decoders that
			// produce one treat it as opaque black, and so do we (partial is
			// false for entries past the palette).
			if partial[idx] {
				alpha = true
				if clear[idx] {
					return true, true
				}
			}
		}
	}
	return
}

func scanGeneric(img image.Image) (alpha, transparent bool) {
	r := img.Bounds()
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return false, false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.At(x, y)
			if c == nil {
				continue
			}
			_, _, _, a := c.RGBA()
			if a != 0xFFFF {
				alpha = true
				if a == 0 {
					return true, true
				}
			}
		}
	}
	return
}

// TransparentShare returns the share of pixels (0..1) whose alpha is below
// the 8-bit value below: how much of an image is a transparent region, so a
// case can demand real transparency ("5% of pixels below alpha 128") rather
// than one pixel at alpha 254.
func TransparentShare(img image.Image, below uint8) float64 {
	r := img.Bounds()
	total := r.Dx() * r.Dy()
	if total == 0 {
		return 0
	}
	n := 0
	switch m := img.(type) {
	case *image.YCbCr, *image.Gray, *image.Gray16, *image.CMYK:
		return 0 // no alpha channel
	case *image.NRGBA:
		n = countBelow8(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 4, 3, below)
	case *image.RGBA:
		n = countBelow8(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 4, 3, below)
	case *image.NYCbCrA:
		n = countBelow8(m.A, m.AStride, m.AOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 1, 0, below)
	default:
		limit := uint32(below) * 0x101 // RGBA() alpha is 16-bit
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if c := img.At(x, y); c != nil {
					if _, _, _, a := c.RGBA(); a < limit {
						n++
					}
				}
			}
		}
	}
	return float64(n) / float64(total)
}

// countBelow8 counts 8-bit alpha samples below limit.
func countBelow8(pix []byte, stride, start, w, h, bpp, aoff int, limit uint8) int {
	n := 0
	for y := 0; y < h; y++ {
		row := pix[start+y*stride : start+y*stride+w*bpp]
		for i := aoff; i < len(row); i += bpp {
			if row[i] < limit {
				n++
			}
		}
	}
	return n
}
