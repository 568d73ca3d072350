package ui

import (
	"image/color"
	"vegas-desk/internal/ticketart"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// vegasTheme is Fyne's default theme with the ticket's colours: night purple
// backgrounds in the dark variant and a gold primary colour.
type vegasTheme struct{}

var _ fyne.Theme = vegasTheme{}

func (vegasTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	dark := v == theme.VariantDark
	switch n {
	case theme.ColorNamePrimary:
		if dark {
			return ticketart.Gold
		}
		return color.NRGBA{0x6b, 0x1f, 0x9e, 0xff}
	case theme.ColorNameBackground:
		if dark {
			return color.NRGBA{0x17, 0x10, 0x26, 0xff}
		}
	case theme.ColorNameButton, theme.ColorNameInputBackground:
		if dark {
			return color.NRGBA{0x2a, 0x20, 0x40, 0xff}
		}
	case theme.ColorNameHeaderBackground, theme.ColorNameMenuBackground, theme.ColorNameOverlayBackground:
		if dark {
			return color.NRGBA{0x22, 0x18, 0x36, 0xff}
		}
	case theme.ColorNameForegroundOnPrimary:
		if dark {
			return ticketart.Ink
		}
	case theme.ColorNameFocus:
		// What has the keyboard shows from a step back: a light wash over
		// a button (Fyne's default is a faint tint of the primary colour).
		if dark {
			return color.NRGBA{0xff, 0xff, 0xff, 0x70}
		}
		return color.NRGBA{0x6b, 0x1f, 0x9e, 0x60}
	case theme.ColorNameDisabled:
		// A hint, a voided payment's row (labels of low importance, which
		// Fyne draws in this colour: 1.5:1 on the backgrounds) and a
		// disabled button's text: a grey dimmer than the text, that reads
		// at 4.5:1 at least on the backgrounds (WCAG AA; TestContrast).
		if dark {
			return color.NRGBA{0x9c, 0x94, 0xb0, 0xff}
		}
		return color.NRGBA{0x6a, 0x6a, 0x72, 0xff}
	case focusRing:
		if dark {
			return color.NRGBA{0x4d, 0xd0, 0xff, 0xff}
		}
		return color.NRGBA{0x00, 0x5f, 0xcc, 0xff}
	}
	return theme.DefaultTheme().Color(n, v)
}

// focusRing is the colour of the ring round a button that has the keyboard:
// a cyan that stands out from the gold, green and red buttons.
const focusRing fyne.ThemeColorName = "vegas-focus-ring"

func (vegasTheme) Font(s fyne.TextStyle) fyne.Resource     { return theme.DefaultTheme().Font(s) }
func (vegasTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }
func (vegasTheme) Size(n fyne.ThemeSizeName) float32       { return theme.DefaultTheme().Size(n) }
