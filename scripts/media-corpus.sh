#!/usr/bin/env bash
# Regenerates test/media/corpus/: small media files written by ffmpeg, and manifest.json recording
# what ffprobe reads in each (format, duration, streams) or that it refuses the file.
# test/media/corpus.test.ts holds the probe (src/media/probe.ts) to that reading, so CI needs
# neither ffmpeg nor ffprobe: run this only to change the corpus, then commit its output.
#
#   scripts/media-corpus.sh            (needs ffmpeg, ffprobe and jq on the PATH)
#
# Every file is short and tiny (at most a second or two, at most 64x48 pixels); the whole corpus
# stays well under 1 MB. The bytes depend on the ffmpeg build; the manifest is what tests compare.
set -euo pipefail

OUT="$(cd "$(dirname "$0")/.." && pwd)/test/media/corpus"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

# The output comes last; bitexact muxing leaves out random stream serials and ids, so a rerun writes the same bytes.
ff() { ffmpeg -v error -nostdin -y "${@:1:$#-1}" -fflags +bitexact "${@: -1}"; }
# Deterministic sources: a tone, a stereo pair of tones, a test picture.
TONE=(-f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1")
STEREO=(-f lavfi -i "aevalsrc=0.5*sin(440*2*PI*t)|0.5*sin(660*2*PI*t):sample_rate=48000:duration=1")
PICTURE=(-f lavfi -i "testsrc2=size=64x48:rate=10:duration=1")
STILL=(-f lavfi -i "testsrc2=size=64x48:rate=1" -frames:v 1)
X264=(-c:v libx264 -preset ultrafast -crf 45 -pix_fmt yuv420p)

# ---------------------------------------------------------------- MP3
ff "${TONE[@]}" -ac 1 -ar 22050 -b:a 32k -id3v2_version 3 -metadata title="ID3v2.3" "$OUT/mp3-id3v23.mp3"
ff "${TONE[@]}" -ac 1 -ar 22050 -b:a 32k -id3v2_version 4 -metadata title="ID3v2.4" "$OUT/mp3-id3v24.mp3"
# Two ID3v2 tags back to back before the audio (some taggers prepend a tag without removing the old one):
# a hand-written ID3v2.3 tag (10-byte header, syncsafe size 17, one TIT2 frame) before a tagged file.
printf 'ID3\x03\x00\x00\x00\x00\x00\x11TIT2\x00\x00\x00\x07\x00\x00\x00second' >"$TMP/tag.bin"
cat "$TMP/tag.bin" "$OUT/mp3-id3v24.mp3" >"$OUT/mp3-two-id3v2-tags.mp3"
# ID3v2.4 with a footer ("3DI"), as some writers append: the header's flag 0x10 announces it.
ff "${TONE[@]}" -ac 1 -ar 22050 -b:a 32k -id3v2_version 0 -write_xing 0 "$TMP/bare.mp3"
printf 'ID3\x04\x00\x10\x00\x00\x00\x11TIT2\x00\x00\x00\x07\x00\x00\x00footer3DI\x04\x00\x10\x00\x00\x00\x11' >"$TMP/footer.bin"
cat "$TMP/footer.bin" "$TMP/bare.mp3" >"$OUT/mp3-id3v24-footer.mp3"
# Junk between the tag and the first frame (decoders search for the frame sync).
{
  cat "$TMP/tag.bin"
  printf 'stray bytes before the audio'
  cat "$TMP/bare.mp3"
} >"$OUT/mp3-junk-before-audio.mp3"
# A file cut inside its last frame: decoders play the frames that are there.
head -c 3000 "$TMP/bare.mp3" >"$OUT/mp3-cut-last-frame.mp3"
# MPEG-1 Layer III, constant bitrate, without a Xing/Info header, with an ID3v1 tag at the end.
ff "${TONE[@]}" -ac 2 -ar 44100 -b:a 64k -id3v2_version 0 -write_xing 0 -write_id3v1 1 -metadata title=v1 "$OUT/mp3-cbr-no-xing-id3v1.mp3"
# Constant bitrate with LAME's Info header.
ff "${TONE[@]}" -ac 2 -ar 44100 -b:a 64k "$OUT/mp3-cbr-info.mp3"
# Variable bitrate with LAME's Xing header.
ff "${TONE[@]}" -ac 2 -ar 44100 -q:a 7 "$OUT/mp3-vbr-xing.mp3"
# MPEG-2 (24 kHz) and MPEG-2.5 (8 kHz) Layer III.
ff "${TONE[@]}" -ac 1 -ar 24000 -b:a 32k "$OUT/mp3-mpeg2.mp3"
ff "${TONE[@]}" -ac 1 -ar 8000 -b:a 16k "$OUT/mp3-mpeg25.mp3"
ff "${TONE[@]}" -ac 1 -ar 8000 -q:a 9 -write_xing 0 -id3v2_version 0 "$OUT/mp3-mpeg25-vbr-no-xing.mp3"

# ---------------------------------------------------------------- WAV
ff "${TONE[@]}" -ac 1 -ar 8000 -c:a pcm_s16le "$OUT/wav-pcm16.wav"
# A LIST/INFO chunk (metadata) and a bext chunk (broadcast extension) before the data.
ff "${TONE[@]}" -ac 1 -ar 8000 -c:a pcm_s16le -write_bext 1 -metadata title="extra chunks" -metadata comment=corpus "$OUT/wav-extra-chunks.wav"
# WAVE_FORMAT_EXTENSIBLE (24-bit, three channels), and 32-bit float (fmt tag 3).
ff "${TONE[@]}" -ac 3 -ar 8000 -c:a pcm_s24le -t 0.5 "$OUT/wav-extensible-24bit.wav"
ff "${TONE[@]}" -ac 1 -ar 8000 -c:a pcm_f32le -t 0.5 "$OUT/wav-float.wav"
# An odd-sized chunk before the data (RIFF pads it to even): a one-byte-text LIST chunk written by hand.
ff "${TONE[@]}" -ac 1 -ar 8000 -c:a pcm_u8 -t 0.5 -bitexact "$TMP/u8.wav"
{
  head -c 36 "$TMP/u8.wav"
  printf 'junk\x03\x00\x00\x00abc\x00'
  tail -c +37 "$TMP/u8.wav"
} >"$TMP/odd.wav"
# Fix the RIFF size (4 + chunks) after inserting 12 bytes.
size=$(($(stat -c %s "$TMP/odd.wav") - 8))
printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((size & 255)) $(((size >> 8) & 255)) $(((size >> 16) & 255)) $(((size >> 24) & 255)))" |
  dd of="$TMP/odd.wav" bs=1 seek=4 conv=notrunc status=none
cp "$TMP/odd.wav" "$OUT/wav-odd-chunk.wav"
# A data chunk cut short (its declared size passes the end of the file), as a stopped recording leaves it.
head -c 3001 "$OUT/wav-pcm16.wav" >"$OUT/wav-cut-data.wav"

# ---------------------------------------------------------------- FLAC, Ogg
ff "${TONE[@]}" -ac 1 -ar 16000 -c:a flac -metadata title=flac "$OUT/flac.flac"
ff "${STEREO[@]}" -c:a libvorbis -q:a 0 "$OUT/ogg-vorbis.ogg"
ff "${STEREO[@]}" -c:a libopus -b:a 16k "$OUT/ogg-opus.opus"

# ---------------------------------------------------------------- MP4, MOV
# ffmpeg's default: the movie box (moov) after the media data.
ff "${PICTURE[@]}" "${TONE[@]}" -shortest "${X264[@]}" -c:a aac -b:a 24k -ac 1 "$OUT/mp4-moov-at-end.mp4"
ff "${PICTURE[@]}" "${TONE[@]}" -shortest "${X264[@]}" -c:a aac -b:a 24k -ac 1 -movflags +faststart "$OUT/mp4-faststart.mp4"
# Fragmented: an empty moov, then moof/mdat pairs.
ff "${PICTURE[@]}" "${TONE[@]}" -shortest "${X264[@]}" -g 5 -c:a aac -b:a 24k -ac 1 \
  -movflags frag_keyframe+empty_moov+default_base_moof "$OUT/mp4-fragmented.mp4"
ff "${PICTURE[@]}" "${X264[@]}" -f mov "$OUT/mov-video-only.mov"
# MP3 audio in MP4 (mono, MPEG-2 at 22.05 kHz; the sample entry says 2 channels, as ffmpeg writes it).
ff "${PICTURE[@]}" "${TONE[@]}" -shortest "${X264[@]}" -c:a libmp3lame -b:a 32k -ar 22050 -ac 1 "$OUT/mp4-h264-mp3-mono.mp4"
ff "${TONE[@]}" -c:a aac -b:a 24k -ac 1 "$OUT/m4a-aac.m4a"

# ---------------------------------------------------------------- WebM
ff "${PICTURE[@]}" "${STEREO[@]}" -shortest -c:v libvpx -b:v 50k -c:a libopus -b:a 16k "$OUT/webm-vp8-opus.webm"
ff "${STEREO[@]}" -c:a libopus -b:a 16k -f webm "$OUT/webm-opus-audio-only.webm"

# ---------------------------------------------------------------- images
ff "${STILL[@]}" "$OUT/png-rgb.png"
ff "${STILL[@]}" -pix_fmt rgba64be "$OUT/png-rgba16.png"
ff "${STILL[@]}" -pix_fmt yuvj420p "$OUT/jpeg-baseline.jpg"
ff "${STILL[@]}" -c:v libwebp -lossless 0 "$OUT/webp-lossy.webp"
ff "${STILL[@]}" -c:v libwebp -lossless 1 "$OUT/webp-lossless.webp"
ff -f lavfi -i "testsrc2=size=64x48:rate=5:duration=0.6" -c:v libwebp_anim -loop 0 "$OUT/webp-animated.webp"
ff -f lavfi -i "testsrc2=size=32x24:rate=5:duration=0.6" "$OUT/gif-animated.gif"
ff -f lavfi -i "testsrc2=size=32x24:rate=5:duration=0.6" -plays 0 -f apng "$OUT/png-animated.png"

# ---------------------------------------------------------------- refused by ffprobe
# An MP4 cut before its movie box; an MP3 cut inside its ID3v2 tag; noise named like an MP3.
head -c 2000 "$OUT/mp4-moov-at-end.mp4" >"$OUT/bad-mp4-no-moov.mp4"
# Opened by ffprobe (its movie box is whole) but refused by the probe on purpose: its sample table
# points past the end of the file, so a decoder stops short of the duration the file declares.
head -c 5000 "$OUT/mp4-faststart.mp4" >"$OUT/mp4-faststart-cut-in-mdat.mp4"
head -c 20 "$OUT/mp3-id3v23.mp3" >"$OUT/bad-mp3-cut-in-tag.mp3"
ff -f lavfi -i "anoisesrc=duration=0.05:sample_rate=8000:seed=7" -f u8 -c:a pcm_u8 "$OUT/bad-noise.mp3"
printf 'RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00' >"$OUT/bad-wav-cut-in-fmt.wav"

# ---------------------------------------------------------------- manifest
# Per file: what ffprobe reads (format names, duration, streams) or the error it gives.
{
  echo '{'
  first=1
  for f in "$OUT"/*; do
    name=$(basename "$f")
    [ "$name" = manifest.json ] && continue
    if json=$(ffprobe -v error -print_format json -show_format -show_streams "$f" 2>"$TMP/err"); then
      entry=$(jq -c '{
        ffprobe: "accepted",
        format: .format.format_name,
        brand: (.format.tags.major_brand // null),
        duration: (.format.duration // null | if . == null then null else tonumber end),
        streams: [.streams[] | {codec_type, codec_name}
          + (if .width then {width, height} else {} end)
          + (if .sample_rate then {sample_rate: (.sample_rate | tonumber), channels} else {} end)]
      }' <<<"$json")
    else
      # Its messages, without the path and the demuxer's address, so the manifest is the same on every run.
      err=$(sed -e "s#^$f: ##" -e 's#^\[\([a-z0-9,_]*\) @ 0x[0-9a-f]*\] #\1: #' "$TMP/err" | paste -sd ';' -)
      entry=$(jq -cn --arg e "$err" '{ffprobe: "refused", error: $e}')
    fi
    [ $first = 1 ] || echo ','
    first=0
    printf '  "%s": %s' "$name" "$entry"
  done
  echo
  echo '}'
} >"$OUT/manifest.json"
# In the project's JSON style, so that the checks of the tree pass on it as written.
(cd "$OUT/../../.." && npx --no-install biome format --write test/media/corpus/manifest.json >/dev/null)
echo "wrote $(ls "$OUT" | wc -l) files ($(du -sh "$OUT" | cut -f1)) to $OUT"
