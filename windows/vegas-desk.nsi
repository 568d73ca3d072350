; The Windows installer of vegas-desk, made on Linux by make windows
; (Debian's nsis: makensis -DVERSION=… -DBIN=… -DOUT=…). It installs for the
; user who runs it, without an administrator: the binaries in
; %LOCALAPPDATA%\Programs\vegas-desk, a Start-menu entry, an uninstaller
; listed in Settings > Apps. The ledger and settings live elsewhere
; (%LOCALAPPDATA%\vegas-desk): uninstalling never removes a ledger.
; Silent: vegas-desk-setup.exe /S (and uninstall.exe /S).
; 64-bit, like the program (and wine64 runs it without a 32-bit wine)
Target amd64-unicode
SetCompressor /SOLID lzma
RequestExecutionLevel user

!define UNINST "Software\Microsoft\Windows\CurrentVersion\Uninstall\vegas-desk"

Name "vegas-desk ${VERSION}"
OutFile "${OUT}"
InstallDir "$LOCALAPPDATA\Programs\vegas-desk"
InstallDirRegKey HKCU "${UNINST}" "InstallLocation"
Icon "${BIN}\vegas-desk.ico"
UninstallIcon "${BIN}\vegas-desk.ico"
VIProductVersion "${VERSION}.0"
VIAddVersionKey /LANG=1036 "ProductName" "vegas-desk"
VIAddVersionKey /LANG=1036 "FileDescription" "Installation de vegas-desk"
VIAddVersionKey /LANG=1036 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "LegalCopyright" "vegas-desk"

LoadLanguageFile "${NSISDIR}\Contrib\Language files\French.nlf"
LoadLanguageFile "${NSISDIR}\Contrib\Language files\English.nlf"

Page directory
Page instfiles
UninstPage uninstConfirm
UninstPage instfiles

Section "vegas-desk"
	SetShellVarContext current
	SetOutPath "$INSTDIR"
	File "${BIN}\vegas-desk.exe"
	File "${BIN}\vegas-desk-cli.exe"
	File "${BIN}\vegas-desk.ico"
	WriteUninstaller "$INSTDIR\uninstall.exe"
	CreateShortcut "$SMPROGRAMS\vegas-desk.lnk" "$INSTDIR\vegas-desk.exe" "" "$INSTDIR\vegas-desk.ico"
	WriteRegStr HKCU "${UNINST}" "DisplayName" "vegas-desk"
	WriteRegStr HKCU "${UNINST}" "DisplayVersion" "${VERSION}"
	WriteRegStr HKCU "${UNINST}" "Publisher" "vegas-desk"
	WriteRegStr HKCU "${UNINST}" "DisplayIcon" "$INSTDIR\vegas-desk.ico"
	WriteRegStr HKCU "${UNINST}" "InstallLocation" "$INSTDIR"
	WriteRegStr HKCU "${UNINST}" "UninstallString" '"$INSTDIR\uninstall.exe"'
	WriteRegStr HKCU "${UNINST}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
	WriteRegDWORD HKCU "${UNINST}" "NoModify" 1
	WriteRegDWORD HKCU "${UNINST}" "NoRepair" 1
SectionEnd

Section "Uninstall"
	SetShellVarContext current
	Delete "$SMPROGRAMS\vegas-desk.lnk"
	Delete "$INSTDIR\vegas-desk.exe"
	Delete "$INSTDIR\vegas-desk-cli.exe"
	Delete "$INSTDIR\vegas-desk.ico"
	Delete "$INSTDIR\uninstall.exe"
	RMDir "$INSTDIR"
	DeleteRegKey HKCU "${UNINST}"
SectionEnd
