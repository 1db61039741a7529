import { createContext, useContext } from 'react';
import { COLOR_THEME, type Theme } from './palette.js';

export { themeFor, type Theme } from './palette.js';

export const ThemeContext = createContext<Theme>(COLOR_THEME);

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
