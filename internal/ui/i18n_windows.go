package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"

	"vegas-desk/internal/platform"
)

// followChoice makes the language chosen in Réglages (code) win over the
// Windows locale, which Fyne reads itself (GetUserDefaultLocaleName): when
// they differ, code's translations are loaded under the locale's own name
// (fr.json as en-US on an American Windows, en.json as fr-FR on a French
// one), which Fyne then prefers to every other.
func followChoice(code string) {
	if !overridesSystem(code, platform.Language()) {
		return
	}
	data, err := translations.ReadFile("translations/" + code + ".json")
	if err != nil {
		fyne.LogError("load translations", err)
		return
	}
	if err := lang.AddTranslationsForLocale(data, lang.SystemLocale()); err != nil {
		fyne.LogError("load translations", err)
	}
}
