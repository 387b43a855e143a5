package org.tracewire.app.util;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javafx.scene.image.Image;
import javafx.scene.image.ImageView;

/** The app icon and the small glyphs, loaded once from {@code /org/tracewire/app/icons/}. */
public final class Icons {
    private static final Map<String, Image> CACHE = new ConcurrentHashMap<>();

    private Icons() {
    }

    /**
     * @param name a resource under {@code /org/tracewire/app/icons/}, e.g. "glyph-event.png"
     * @return the image, or null when missing
     */
    public static Image image(String name) {
        return CACHE.computeIfAbsent(name, n -> {
            try (InputStream in = Icons.class.getResourceAsStream("/org/tracewire/app/icons/" + n)) {
                return in == null ? null : new Image(in);
            } catch (Exception e) {
                return null;
            }
        });
    }

    /**
     * @param name a glyph resource
     * @return an ImageView of it, or null when missing
     */
    public static ImageView view(String name) {
        Image i = image(name);
        return i == null ? null : new ImageView(i);
    }

    /** @return the app icon in every size there is, for {@code Stage.getIcons()} */
    public static List<Image> appIcons() {
        return List.of(16, 24, 32, 48, 64, 128, 256).stream()
                .map(s -> image("tracewire-" + s + ".png")).filter(Objects::nonNull).toList();
    }
}
