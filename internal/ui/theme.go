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
	}
	return theme.DefaultTheme().Color(n, v)
}

func (vegasTheme) Font(s fyne.TextStyle) fyne.Resource     { return theme.DefaultTheme().Font(s) }
func (vegasTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }
func (vegasTheme) Size(n fyne.ThemeSizeName) float32       { return theme.DefaultTheme().Size(n) }
